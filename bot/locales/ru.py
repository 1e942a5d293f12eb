"""Russian texts (the default language).  HTML; placeholders are filled by ``bot.i18n.t``."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # ------------------------------------------------------------------ words
    "you": "вы",
    "and_more": "и ещё {n}",
    "value.on": "да",
    "value.off": "нет",
    "value.none": "нет",
    "preset.classic": "классика",
    "preset.full": "полные правила",
    "level.random": "случайный",
    "level.normal": "средний",
    "level.hard": "сильный",
    "computer.names": "Вера,Глеб,Дина,Жора,Зоя,Лёва",
    "rules.changed": "{preset} (изменено: {changes})",
    # ------------------------------------------------------------------ commands
    "cmd.newgame": "Новая партия",
    "cmd.score": "Запись партии",
    "cmd.rules": "Правила (/rules бочка — одно правило)",
    "cmd.help": "Как играть с ботом",
    "cmd.leave": "Уйти из-за стола (за вас сыграет компьютер)",
    "cmd.stop": "Остановить партию",
    "start.hello": (
        "Привет, {name}! Это «Тысяча».\n\n"
        "• /newgame здесь — партия против двух компьютеров.\n"
        "• /newgame в группе — стол с друзьями: нажмите «Сесть».\n"
        "Ваши карты всегда приходят сюда, в личный чат."
    ),
    "help": (
        "🃏 <b>Тысяча</b>\n"
        "/newgame — новая партия (в группе: стол, в личке: против компьютера; "
        "можно /newgame 2, 3 или 4 и classic/full)\n"
        "/score — запись партии (🖼 — картинками); /export — файл записи\n"
        "/stats — ваша статистика и рейтинг; /top — таблица игроков\n"
        "/rules — правила стола; /rules бочка — одно правило\n"
        "/leave — уйти из-за стола: за вас доиграет компьютер\n"
        "/stop — остановить партию (создатель стола или админ)\n\n"
        "Карты и кнопки ходов приходят в личный чат с ботом; "
        "в группе — общий стол."
    ),
    "newgame.exists": "Здесь уже есть партия. /stop — остановить её.",
    "newgame.bad_args": "Не понял: {reason}",
    "join.done": "Вы за столом «{title}». Ждём начала партии — карты придут сюда.",
    "join.gone": "Этот стол уже не ждёт игроков.",
    "leave.not_seated": "Вы не за столом.",
    "leave.done": "{name}: место отдано компьютеру.",
    "stop.none": "Здесь нет партии.",
    "stop.not_allowed": "Остановить партию может создатель стола или админ.",
    "stop.done": "Партия остановлена. Запись сохранена: /score",
    "reminder": "⏰ Ваш ход за столом «{title}»! Осталось {seconds} с, потом сходит компьютер.",
    # ------------------------------------------------------------------ lobby
    "lobby.title": "🃏 <b>Тысяча — новая партия</b>",
    "lobby.rules": "Правила: {rules}",
    "lobby.computer_level": "Компьютер: {level}",
    "lobby.free": "— свободно —",
    "lobby.hint": "Нажмите «Сесть». Карты придут в личный чат с ботом.",
    "lobby.hint_full": "Все на местах — создатель стола может начинать.",
    "lobby.joined": "{name} — за столом",
    "lobby.left": "{name} уходит из-за стола",
    "lobby.creator_not_started": "{name}, нажмите «Сесть», чтобы открыть бота и сесть за стол",
    "lobby.cancelled": "🃏 Партия отменена.",
    "settings.title": "⚙️ <b>Правила стола</b>",
    "settings.pick": "Выберите раздел:",
    "settings.now": "Сейчас: <b>{value}</b>",
    "section.bidding": "Торговля",
    "section.play": "Розыгрыш",
    "section.redeal": "Пересдача",
    "section.rospis": "Роспись",
    "section.golden": "Золотой кон",
    "section.dark": "Игра втемную",
    "section.scoring": "Штрафы и очки",
    "section.barrel": "Бочка",
    "section.table": "Стол",
    # ------------------------------------------------------------------ buttons
    "btn.join": "➕ Сесть",
    "btn.leave": "➖ Встать",
    "btn.add_computer": "🤖 Добавить компьютер",
    "btn.drop_computer": "➖🤖 Убрать",
    "btn.players": "👥 Игроков: {n}",
    "btn.preset": "📜 Правила: {preset}",
    "btn.level": "🎚 Компьютер: {level}",
    "btn.settings": "⚙️ Все правила",
    "btn.start": "▶️ Начать",
    "btn.cancel": "✖️ Отменить",
    "btn.back": "⬅️ Назад",
    "btn.sections": "⬅️ Разделы",
    "btn.done": "✅ Готово",
    "btn.reset_rules": "↩️ Как в наборе",
    "btn.my_cards": "🂠 Мои карты",
    "btn.score": "📋 Счёт",
    "btn.dark": "🌑 Втемную",
    "btn.light": "👀 Смотреть карты",
    "btn.redeal": "🔄 Пересдача",
    "btn.redeal_talon": "🔄 Пересдача: {reason}",
    "btn.keep": "✋ Играть",
    "btn.pass": "Пас",
    "btn.unblind": "🌗 Растемнить: {bid}",
    "btn.talon": "Прикуп {n}",
    "btn.take_talon": "Взять прикуп",
    "btn.contract_first": "Играю {bid}",
    "btn.concede": "📝 Расписать: −{bid}, по {pay}",
    # ------------------------------------------------------------------ the table
    "table.head": "🃏 <b>Кон {n}</b> · сдаёт {dealer}",
    "table.golden": "✨ золотой кон",
    "table.sits_out": "(на прикупе)",
    "table.bolt": "болт",
    "table.bolts": "болт ×{n}",
    "table.pass": "пас",
    "table.bids": "Торговля: {bids}",
    "table.declarer": "Играет {name}, ставка {bid}",
    "table.contract": "Игра: {name}, {bid}",
    "table.declarer_me": "Играете вы, ставка {bid}",
    "table.contract_me": "Ваша игра: {bid}",
    "table.talon": "Прикуп: {cards}",
    "table.talon_yours": "Прикуп (видите только вы): {cards}",
    "table.talon_closed": "Прикуп закрыт",
    "table.two_talons": "Два прикупа по две карты: играющий выбирает один",
    "table.stock": "В колоде: {n}",
    "table.trump": "Козырь {suit} · марьяжи: {marriages}",
    "table.marriages": "Марьяжи: {marriages}",
    "table.aces": "тузы",
    "table.trick": "Взятка: {cards}",
    "table.last_trick": "Прошлая взятка: {cards} → {winner}",
    "table.tricks": "Взятки: {counts}",
    "table.turn": "Ход: {name} ⏳",
    "event.dark": "{name} играет втемную",
    "event.unblind": "{name}: растемнение, {bid}",
    "event.timeout": "{name}: время вышло, сходил компьютер",
    "event.auto": "{name}: дальше играет компьютер",
    "event.redeal": "пересдача — {name}: {reason}",
    "redeal.four_nines": "четыре девятки",
    "redeal.three_nines": "три девятки",
    "redeal.four_jacks": "четыре валета",
    "redeal.hand_below": "мало очков на руке",
    "redeal.talon_below": "пустой прикуп",
    "redeal.talon_two_nines": "две девятки в прикупе",
    "redeal.talon_three_jacks": "три валета в прикупе",
    "redeal.four_nines_after_pass": "четыре девятки после сноса",
    "redeal.hand": "слабая рука",
    "redeal.talon": "плохой прикуп",
    # ------------------------------------------------------------------ the hand
    "hand.cards": "Ваши карты: {cards}",
    "hand.closed": "Ваши карты пока закрыты.",
    "hand.received": "Вам отдали: {card}",
    "hand.gave": "Вы отдали: {cards}",
    "hand.discarded": "Вы сбросили: {cards}",
    "hand.waiting": "Ходит {name}",
    "hand.left": "Вы ушли из-за стола: за вас играет компьютер.",
    "prompt.dark": "Сыграете втемную? Заказ 120, очки вдвойне, прикуп не покажут.",
    "prompt.redeal": "Можно попросить пересдачу: {reason}.",
    "prompt.bid": "Ставка {bid} ({name}). Ваше слово:",
    "prompt.bid_pass_only": "Ставка {bid} ({name}). Вам остаётся пас:",
    "prompt.unblind": "{name} играет втемную ({bid}). Растемнить?",
    "prompt.talon": "Выберите прикуп:",
    "prompt.take_talon": "Прикуп ваш: возьмите его.",
    "prompt.give": "Отдайте карту — {name}:",
    "prompt.discard": "Сбросьте карту ({k} из 2):",
    "prompt.contract": "Ваша ставка {bid}. Назначьте игру:",
    "prompt.play_lead": "Ваш ход — заходите:",
    "prompt.play": "Ваш ход:",
    # ------------------------------------------------------------------ popups
    "popup.stale": "Эта кнопка устарела",
    "popup.unknown": "Неизвестная кнопка",
    "popup.error": "Что-то пошло не так, попробуйте ещё раз",
    "popup.not_seated": "Вы не за этим столом",
    "popup.not_your_turn": "Сейчас ходит {name}",
    "popup.auto": "За вас сейчас играет компьютер",
    "popup.only_creator": "Это может создатель стола или админ",
    "popup.already_seated": "Вы уже за столом",
    "popup.table_full": "Все места заняты",
    "popup.not_full": "Не все места заняты",
    "popup.no_computer": "За столом нет компьютера",
    "popup.too_many_seated": "За столом больше игроков — сначала кто-то должен встать",
    "popup.bad_rule": "Так нельзя: {reason}",
    "popup.hand": "Ваши карты: {cards}",
    "popup.received": "(вам отдали {card})",
    "popup.no_cards": "Карт на руке нет",
    "popup.totals": "Счёт: {totals}",
    # ------------------------------------------------------------------ results
    "summary.head": "Кон {n}:",
    "summary.made": "Кон {n} — {name}: игра {contract}, взято {points} — сыграна, {score}",
    "summary.failed": "Кон {n} — {name}: игра {contract}, взято {points} — недобор, {score}",
    "summary.conceded": "Кон {n} — {name}: роспись {bid}, {score}",
    "summary.totals": "Счёт: {totals}",
    "summary.winner": "🏆 Победа: {name} — {total}!",
    "summary.game_over": "Партия окончена. Запись: /score · новая партия: /newgame",
    "game.stopped": "⏹ Партия остановлена.",
    "note.golden_double": "золотой кон: всё вдвойне",
    "note.dark_double": "игра втемную: всё вдвойне",
    "note.stock_points": "{name}: {value}",
    "note.rospis_keeps": "{name}: роспись без минуса, но болт",
    "note.conceded": "{name}: роспись, {value}",
    "note.rospis_paid": "{name}: за роспись {value}",
    "note.rospis_penalty": "{name}: третья роспись, штраф {value}",
    "note.all_tricks_120": "{name}: все взятки на 120 — игра сыграна",
    "note.contract_made": "{name}: игра сыграна, {value}",
    "note.contract_failed": "{name}: недобор, {value}",
    "note.defender_points": "{name}: {value}",
    "note.four_nines_bonus": "{name}: четыре девятки, премия {value}",
    "note.talon_score": "{name} (на прикупе): очки прикупа {value}",
    "note.sitter_nothing": "{name}: на бочке очки не пишутся ({value})",
    "note.frozen": "{name}: игра с бочки — очки вистующих не пишутся ({value})",
    "note.bolt": "{name}: болт ({value}-й за партию)",
    "note.bolt_penalty": "{name}: три болта — штраф {value}",
    "note.tie_one_more": "ничья за тысячей — играем ещё кон",
    "note.barrel_capped": "{name}: сверх бочки {value} не пишется",
    "note.barrel_on": "{name}: на бочке ({value})",
    "note.barrel_back": "{name}: вдвоём на бочку нельзя — назад, {value}",
    "note.knocked_off": "{name}: спихнули с бочки",
    "note.barrel_failed": "{name}: недобор на бочке — слёт",
    "note.barrel_try": "{name}: попытка на бочке {value}",
    "note.barrel_tries_out": "{name}: попытки на бочке кончились",
    "note.third_fall_zero": "{name}: третий слёт с бочки — счёт на ноль",
    "note.fall": "{name}: слёт с бочки, {value}",
    "note.samosval": "{name}: ровно {value} — самосвал, счёт на ноль",
    "note.winner": "🏆 {name}: победа, {value}",
    "note.golden_reset": "золотой кон никто не сыграл — счёт обнулён",
    "note.golden_again": "золотой кон никто не сыграл — золотой круг ещё раз",
    # ------------------------------------------------------------------ /score
    "score.none": "Здесь ещё не играли. /newgame — новая партия.",
    "score.empty": "Сыгранных конов пока нет.",
    "score.finished": "📋 Запись последней партии",
    "score.stopped": "📋 Запись последней партии (остановлена)",
    "score.dealer": "сд",
    "score.game": "игра",
    "score.redeal": "пересдача",
    "score.conceded": "роспись",
    "score.skipped": "… первые коны скрыты: {k}",
    "score.last": "Кон {n}:",
    "score.legend": "<i>Знаки: {marks}</i>",
    "score.labels": "<i>{labels}</i>",
    "mark.bolt": "болт",
    "mark.penalty": "штраф",
    "mark.barrel_on": "на бочке",
    "mark.barrel_back": "с бочки назад",
    "mark.fall": "слёт",
    "mark.samosval": "самосвал (555 → 0)",
    "mark.winner": "победа",
    "mark.made": "игра сыграна",
    "mark.failed": "недобор",
    "mark.golden": "золотой кон",
    "mark.dark": "втемную",
    # ------------------------------------------------------------------ /rules
    "rules.summary": (
        "🃏 <b>Тысяча: коротко</b>\n"
        "Колода 24 карты: 9, валет (2), дама (3), король (4), 10 (10), туз (11). "
        "Цель — набрать 1000 очков.\n"
        "Каждому по 7 карт, 3 — в прикуп. Первая рука «сидит на 100»; дальше торгуются "
        "по 5. Выше 120 — только с марьяжем на руке.\n"
        "Победитель торговли берёт прикуп, отдаёт по карте соперникам и назначает игру "
        "(или расписывает её). Набрано не меньше заказа — игра пишется в плюс, иначе в "
        "минус. Вистующие пишут свои очки, округлённые до 5.\n"
        "Марьяж (король и дама одной масти): ♥ 100, ♦ 80, ♣ 60, ♠ 40. Захвалить можно, "
        "зайдя с короля или дамы после своей первой взятки; масть становится козырем.\n"
        "Болт — кон без взяток; три болта — штраф 120. Ровно 555 — самосвал, счёт на ноль.\n"
        "С 880 очками садятся на бочку: три попытки сыграть свою игру и выиграть, "
        "иначе слёт (−120)."
    ),
    "rules.table_head": "<b>Правила этого стола</b> ({preset}):",
    "rules.table_classic": "классические, без изменений",
    "rules.more": "/rules слово — одно правило, например /rules бочка или /rules втемную",
    "rules.unknown": "Не знаю правила «{word}». Например: /rules бочка, /rules роспись.",
    "rule.one": "<b>{name}</b> (<code>{id}</code>)\n{text}\n\nУ этого стола: <b>{value}</b> "
                "(по умолчанию: {default})",
    # ------------------------------------------------------------------ guards (issue 8)
    "guard.wrong_place": "Эта кнопка не отсюда: нажмите её там, где её показал бот",
    "guard.not_saved": "Ход не сохранён: база данных занята. Попробуйте ещё раз через минуту",
    "guard.not_saved_cmd": (
        "Не получилось сохранить: база данных занята. Попробуйте ещё раз через минуту."
    ),
    "guard.broken": (
        "⚠️ Партию №{game} не удалось восстановить после перезапуска. Её запись "
        "сохранена; /newgame начнёт новую партию."
    ),
    "guard.expired_lobby": "🃏 Стол закрыт: долго никто не садился. /newgame откроет новый.",
    "guard.expired_game": (
        "🃏 Партия остановлена: в ней давно не было ходов. Запись сохранена: /score"
    ),
    # ------------------------------------------------------------------ issue 10
    "hint.unknown_command": (
        "Не знаю такой команды. Команды: /newgame, /score, /rules, /help, /leave, /stop."
    ),
    "hint.private_text": (
        "Я понимаю команды и кнопки. /newgame — новая партия против компьютера, "
        "/help — как играть."
    ),
    "added.group": (
        "🃏 Привет! Я веду «Тысячу» прямо в этом чате.\n"
        "• /newgame — открыть стол: игроки нажимают «Сесть», можно добавить компьютер.\n"
        "• Карты и кнопки ходов приходят каждому в личный чат с ботом, здесь — общий стол.\n"
        "• /rules — правила, /help — все команды."
    ),
    "lang.current": "Язык этого чата: {name}. Сменить: /lang ru — русский, /lang en — English.",
    "lang.set": "Готово: теперь я говорю здесь по-русски.",
    "lang.unknown": "Не знаю языка «{code}». Есть два: /lang ru — русский, /lang en — English.",
    "lang.not_allowed": "Язык группы может сменить создатель стола или админ.",
    "lang.name": "русский",
    "table.none": "Здесь сейчас нет партии. /newgame — начать новую.",
    "table.moved": "🃏 Стол — ниже. Старое сообщение больше не обновляется.",
    "table.waiting": "Партия ещё не началась: стол ждёт игроков выше.",
    "end.title": "🏁 <b>Партия окончена</b> — итоговая запись",
    "end.rematch": "🔁 Ещё партия",
    "end.new_table": "🃏 Новый стол",
    "end.rematch_done": "🔁 Ещё партия тем же составом — стол ниже.",
    "autopilot.on": "⏰ {name} не отвечает — пока ходит компьютер",
    "autopilot.off": "👋 {name} снова в игре",
    "autopilot.private": (
        "⏰ Время на ход вышло — компьютер ходит за вас. Сделайте ход сами, и место "
        "снова ваше."
    ),
    "solo.pick_level": "Выберите уровень компьютеров:",
    "solo.pick_size": "Сколько игроков за столом?",
    "solo.players": "{n} игрока",
    "solo.level": "🎚 {level}",
    # ------------------------------------------------------------------ refusals (engine codes)
    "refuse.seat": "место {n}",
    "refuse.phase.dealing": "раздача",
    "refuse.phase.dark": "решение о тёмной",
    "refuse.phase.redeal": "пересдача",
    "refuse.phase.bidding": "торговля",
    "refuse.phase.talon": "прикуп",
    "refuse.phase.passing": "снос",
    "refuse.phase.contract": "заказ игры",
    "refuse.phase.play": "розыгрыш",
    "refuse.phase.game_over": "партия окончена",
    "refuse.kind.dark": "игра втемную",
    "refuse.kind.light": "игра в светлую",
    "refuse.kind.redeal": "пересдача",
    "refuse.kind.keep": "отказ от пересдачи",
    "refuse.kind.bid": "ставка",
    "refuse.kind.pass": "пас",
    "refuse.kind.talon": "прикуп",
    "refuse.kind.give": "снос карты",
    "refuse.kind.discard": "сброс карты",
    "refuse.kind.contract": "заказ игры",
    "refuse.kind.concede": "роспись",
    "refuse.kind.play": "ход картой",
    "refuse.kind.declare": "объявление марьяжа",
    "refuse.not_now": "Сейчас так нельзя: {kind} (сейчас идёт {phase}).",
    "refuse.action_unknown": "Непонятный ход: «{text}».",
    "refuse.card_unknown": "Непонятная карта: «{text}».",
    "refuse.action_format": "Ход записывается как «место:ход», а не «{text}».",
    "refuse.game_over": "Партия уже окончена.",
    "refuse.no_deal": "Карты ещё не розданы.",
    "refuse.deal_not_now": "Раздавать можно только между конами (сейчас идёт {phase}).",
    "refuse.no_seat": "За столом на {n} нет места {seat}.",
    "refuse.not_your_turn": "Сейчас ход — {to_act}, а не {seat}.",
    "refuse.card_not_in_hand": "Карты {card} нет на руке — {seat}.",
    "refuse.redeal_not_now": (
        "Пересдачу можно попросить только при первом своём решении в коне и с подходящей рукой "
        "(а с правилом redeal_after_pass — с четырьмя девятками после сноса, до своего первого "
        "хода картой)."
    ),
    "refuse.redeal_talon_not_allowed": "С этим прикупом пересдача не положена.",
    "refuse.talon_choice": "Выберите прикуп 1 или 2.",
    "refuse.talon_one": "Прикуп один: возьмите его.",
    "refuse.must_follow": "Нужно ходить в масть: {suit}.",
    "refuse.must_trump": "Масти нет — нужно бить козырем: {suit}.",
    "refuse.must_lead_trump": (
        "Правило {rule}: первым заходом в коне при козырях на руке нужно ходить с козыря "
        "({suit})."
    ),
    "refuse.no_lead_foreign_trump": (
        "Правило {rule}: первым заходом в коне нельзя ходить с козыря {suit}, объявленного "
        "другим игроком, пока на руке есть другие карты."
    ),
    "refuse.lead_not_now": "С карты {card} сейчас ходить нельзя.",
    "refuse.declare_not_in_play": "Марьяж объявляют только в розыгрыше, своим заходом.",
    "refuse.declare_not_on_lead": (
        "Марьяж может объявить только тот, кто заходит: сейчас нужно отвечать на чужой ход."
    ),
    "refuse.declare_needs_trick": (
        "Марьяж можно объявить только своим заходом после взятой взятки в этом коне."
    ),
    "refuse.declare_no_marriage": "Для марьяжа нужны король и дама {suit} на руке.",
    "refuse.declare_not_king_queen": "Марьяж объявляют заходом с короля или дамы, а не с {card}.",
    "refuse.declare_ace_marriage_off": "Тузового марьяжа за этим столом нет (правило {rule}).",
    "refuse.declare_no_four_aces": "Для тузового марьяжа нужны все четыре туза на руке.",
    "refuse.declare_ace_marriage_done": "Тузовый марьяж уже объявлен.",
    "refuse.declare_ace_needs_trick": (
        "Тузовый марьяж можно объявить только после взятки, взятой не тузом."
    ),
    "refuse.concede_rule_off": "Роспись за этим столом не играется (правило {rule}).",
    "refuse.concede_sitter": "На бочке расписывать нельзя.",
    "refuse.concede_barrel_blocks_all": (
        "Правило {rule}: пока кто-то сидит на бочке, расписывать нельзя никому."
    ),
    "refuse.concede_limit": "Правило {rule}: за партию можно расписать не больше {limit} раз.",
    "refuse.concede_dark": "Тёмную игру расписать нельзя (правило {rule}).",
    "refuse.bid_min_total": (
        "Правило {rule}: при счёте {total} (меньше {least}) можно только пасовать — ни "
        "повышать, ни растемнять."
    ),
    "refuse.unblind_needs_marriage": "Растемнить тёмную игру можно только с марьяжем на руке.",
    "refuse.unblind_only_125": "Тёмную игру растемняют ставкой ровно {bid}.",
    "refuse.bid_step": "Ставки идут с шагом {step}.",
    "refuse.bid_too_low": "Слишком мало: самая меньшая ставка сейчас {least}.",
    "refuse.bid_above_max": "Правило {rule}: больше {most} заказать нельзя.",
    "refuse.bid_needs_marriage": (
        "С этой рукой можно не больше {most}: выше 120 нужен марьяж на руке."
    ),
    "refuse.bid_no_jumps": "Правило {rule} выключено: повышать можно только на шаг, до {least}.",
    "refuse.contract_dark": "Тёмная игра играется на 120.",
    "refuse.contract_golden": "Золотой кон играется на 120 (правило {rule} выключено).",
    "refuse.contract_below_bid": "Игру нельзя заказать меньше своей ставки {bid}.",
    "refuse.contract_needs_marriage": (
        "С этой рукой можно заказать не больше {most}: выше 120 нужен марьяж."
    ),
    "refuse.layout_hands": "В раздаче должно быть рук: {want}, а их {got}.",
    "refuse.layout_hand_size": "Место {seat} должно получить карт: {want}, а получает {got}.",
    "refuse.layout_talon_size": "В прикупе должно быть карт: {want}, а их {got}.",
    "refuse.layout_card_number": "Нет карты с номером {number}.",
    "refuse.layout_duplicate": "Карта {card} роздана дважды.",
    "refuse.rules": "Эти правила сыграть нельзя.",
    "refuse.unknown_preset": "Нет набора правил «{preset}».",
    "refuse.unknown_rule": "Нет правила «{rule}».",
    "refuse.newgame_unknown_word": (
        "Непонятное слово «{word}»: можно 2, 3, 4, классика, полные или правило=значение."
    ),
    "refuse.rule_value": "Правило {rule}: значение «{value}» не подходит.",
    "refuse.rule_needs": "Правило {rule} действует только вместе с {parent}.",
    "refuse.rule_needs_value": "Правило {rule} действует только при {parent} = {value}.",
    "refuse.rule_positive_multiple": "Правило {rule}: нужно положительное число, кратное 5.",
    "refuse.rule_multiple_range": "Правило {rule}: нужно число, кратное 5, от {lo} до {hi}.",
    "refuse.rule_range": "Правило {rule}: нужно число от {lo} до {hi}.",
    "refuse.rule_at_least": "Правило {rule}: нужно не меньше {lo}.",
    "refuse.rules_contradict": (
        "Правила {rule} и {other} противоречат друг другу, когда козырь объявлен другим "
        "игроком: выберите одно."
    ),
    "refuse.inert_stock": (
        "Правило {rule} ничего не меняет в игре с колодой (two_player_mode = stock): там нет "
        "торговли и договорённостей, действуют только players и two_player_mode."
    ),
    "refuse.inert_two_players_talon_shown": (
        "Правило {rule} ничего не меняет вдвоём (players = 2): выбранный прикуп всегда "
        "показывают."
    ),
    "refuse.inert_two_players_rospis": (
        "Правило {rule} ничего не меняет вдвоём (players = 2): роспись всегда приносит "
        "сопернику 60."
    ),
    "refuse.inert_two_card_talon": (
        "Правило {rule} ничего не меняет вдвоём (players = 2): в прикупе из двух карт трёх "
        "валетов не бывает."
    ),
    "refuse.inert_pass_face_down": (
        "Правило {rule} ничего не меняет вдвоём при two_player_pass = discard_two: сброшенные "
        "карты никто не видит."
    ),
    "refuse.inert_simultaneous_fall": (
        "Правило {rule} ничего не меняет, когда barrel_knock_off выключено: без сбивания с "
        "бочки садятся все, кто на неё забрался."
    ),
    "refuse.inert_third_rospis": (
        "Правило {rule} ничего не меняет при rospis_limit = {limit}: третьей росписи не бывает."
    ),
    # ------------------------------------------------------------------ issue 10 (service)
    "solo.play": "▶️ Играть",
    "solo.started": "🃏 Партия против компьютеров: {n} игрока, уровень — {level}. Правила: {rules}",
    "end.already": "Здесь уже идёт партия",
    "end.not_seated": "Ещё партию тем же составом может начать игрок этого стола",
    "autopilot.off_popup": "С возвращением! Место снова ваше",
    "cmd.lang": "Язык бота (/lang en — English)",
    "cmd.table": "Показать стол внизу чата",
    # ------------------------------------------------------------------ stats and ratings
    "cmd.stats": "Моя статистика и рейтинг",
    "cmd.top": "Таблица игроков (в личке: против компьютера)",
    "stats.none": "{name}, у вас ещё нет доигранных партий. /newgame — новая партия.",
    "stats.title": "📊 <b>Статистика: {name}</b>",
    "stats.rating": "Рейтинг: <b>{rating}</b>",
    "stats.games": "Партий: {games}, побед: {wins} ({percent}%)",
    "stats.place": "Среднее место: {place}",
    "stats.declared": "Заказано игр: {declared}, из них сыграно: {made}",
    "stats.falls": "Падений с бочки: {falls}, болтов: {bolts}",
    "top.none": "В этом чате ещё нет доигранных партий. /newgame — новая партия.",
    "top.title": "🏆 <b>Игроки этого чата</b>",
    "top.row": "{n}. {name} — <b>{rating}</b> (партий: {games}, побед: {wins})",
    "top.legend": "<i>Рейтинг общий для всех чатов; у новичка — 1000. /stats — подробнее.</i>",
    "top.vs_none": "У вас ещё нет доигранных партий с компьютером. /newgame — новая партия.",
    "top.vs_title": "🤖 <b>Вы против компьютера</b>",
    "top.vs_mine": "Ваш рейтинг: <b>{rating}</b>",
    "top.vs_row": ("Уровень «{level}» (рейтинг {rating}): партий {games}, побед {wins} "
                   "({percent}%), среднее место {place}"),
    "btn.forced_on": "⏩ Единственный ход: сразу",
    "btn.forced_off": "✋ Единственный ход: вручную",
    # ------------------------------------------------------------------ pictures, records
    "cmd.export": "Файл с записью последней партии",
    "pictures.button": "🖼 Картинки",
    "pictures.busy": "Картинки уже рисуются…",
    "pictures.recent": "Эти картинки уже в чате выше.",
    "pictures.caption_sheet": "📋 Запись партии",
    "pictures.caption_race": "📈 Гонка к 1000",
    "export.caption": (
        "📎 Запись партии №{n}. Пришлите этот файл мне в личный чат — покажу её запись."
    ),
    "export.none": "Здесь ещё не играли. /newgame — новая партия.",
    "export.playing": "Файл записи будет после конца партии: в нём видны все карты.",
    "export.too_big": "Файл больше 1 МБ — это не запись партии.",
    "export.broken": "В этом файле нет записи партии, которую можно прочитать.",
    "export.not_downloaded": "Файл не скачался, пришлите его ещё раз.",
    "export.sheet_title": "📋 Запись партии из файла",
    # ------------------------------------------------------------------ hints and analysis
    "btn.hint": "💡 Подсказка",
    "btn.analyse": "🔍 Разбор",
    "btn.hints_on": "💡 Подсказки: да",
    "btn.hints_off": "💡 Подсказки: нет",
    "hint.line": "💡 {action}: {why}",
    "hint.late": "💡 Подсказка не успела — попробуйте ещё раз",
    "hint.off": "Подсказки за этим столом выключены",
    "hint.not_your_turn": "Сейчас не ваш ход — подсказывать нечего",
    "hint.act.declare": "{card} с марьяжем",
    "hint.act.give": "отдать {card}",
    "hint.act.discard": "сбросить {card}",
    "hint.act.bid": "ставка {value}",
    "hint.act.contract": "заказ {value}",
    "hint.act.talon": "прикуп {value}",
    "hint.act.pass": "пас",
    "hint.act.redeal": "пересдача",
    "hint.act.keep": "без пересдачи",
    "hint.act.dark": "втёмную",
    "hint.act.light": "в светлую",
    "hint.act.concede": "роспись",
    "why.only": "единственный возможный ход",
    "why.light": "втёмную риск удваивается",
    "why.redeal": "рука слабая (оценка {value})",
    "why.no_redeal": "рука достаточно сильная",
    "why.bid": "сыграна в {pct}% раскладов",
    "why.pass": "ставка {value} сыграна лишь в {pct}% раскладов",
    "why.redeal_talon": "с таким прикупом ставку не сыграть",
    "why.give_loose": "{card} без пары — рука без этой карты сильнее",
    "why.give_cheap": "эта карта руке нужна меньше всего",
    "why.contract": "выходит в {pct}% раскладов",
    "why.concede": "ставка выходит лишь в {pct}% раскладов",
    "why.talon": "так советует оценка руки",
    "why.estimate": "так советует оценка руки",
    "why.marriage": "марьяж на {value}, и масть становится козырем",
    "why.lead_ace": "туз берёт взятку",
    "why.top_left": "берёт взятку: {gone} уже не в игре",
    "why.lead_top": "старшая карта масти — берёт взятку",
    "why.draw_trumps": "выбивает козыри",
    "why.lead_low": "мелкий заход, старшие карты пока держим",
    "why.trumps_in": "бьёт козырем",
    "why.takes_last": "забирает взятку последним ходом",
    "why.takes": "перебивает взятку",
    "why.load_partner": "взятка у партнёра — добавляем очки",
    "why.cheap": "взятку не взять — самая дешёвая карта",
    "why.made_pct": "заказ выходит в {pct}% раскладов",
    "why.beaten_pct": "заказ срывается в {pct}% раскладов",
    "why.made_pct_fit": "в {pct}% раскладов, что сходятся с торговлей и ходами, заказ выходит",
    "why.beaten_pct_fit": "в {pct}% раскладов, что сходятся с торговлей и ходами, заказ срывается",
    "analysis.head": "Кон {n}, заказ {contract} ({name}):",
    "analysis.makeable": "с открытыми картами выполним — до {points} очков.",
    "analysis.not_makeable": "с открытыми картами не выполнить — не больше {points} очков.",
    "analysis.makeable_only": "с открытыми картами выполним.",
    "analysis.not_makeable_only": "с открытыми картами не выполнить.",
    "analysis.mistake_declarer": (
        "Первая ошибка: {name}, взятка {trick}, {card} — после неё заказ уже не выполнить."
    ),
    "analysis.mistake_defenders": (
        "Первая ошибка: {name}, взятка {trick}, {card} — после неё заказ уже не сорвать."
    ),
    "analysis.no_mistake": "Ошибок, решивших исход, не было.",
    "analysis.partial": "Не все ходы проверены: не хватило времени.",
    "analysis.late": "🔍 Разбор не успел — попробуйте ещё раз",
    "analysis.no_play": "🔍 В этом коне картами не играли — разбирать нечего",
    "analysis.sent": "🔍 Разбор — сообщением в чате",
    # ------------------------------------------------------------------ on the pictures
    "pic.sheet_title": "Запись игры",
    "pic.deal_no": "№",
    "pic.game": "Игра",
    "pic.deal": "раздача",
    "pic.total": "итого",
    "pic.redeal": "пересдача",
    "pic.no_game": "—",
    "pic.place": "Место",
    "pic.empty": "Ещё не сыграно ни одной раздачи.",
    "pic.skipped": "… скрыто первых раздач: {k}",
    "pic.deals": "раздач: {n}",
    "pic.legend.made": "игра сыграна",
    "pic.legend.failed": "игра не сыграна",
    "pic.legend.conceded": "роспись",
    "pic.legend.bolt": "болт",
    "pic.legend.penalty": "штраф",
    "pic.legend.barrel_on": "на бочке (1 2 3 — попытки)",
    "pic.legend.fall": "слёт с бочки",
    "pic.legend.barrel_back": "сброс с 880",
    "pic.legend.third_fall": "третий слёт — в 0",
    "pic.legend.samosval": "самосвал 555",
    "pic.legend.winner": "победа",
    "pic.legend.golden": "золотая",
    "pic.legend.dark": "тёмная",
    "pic.legend.sitting_out": "сдаёт (не играет)",
    "pic.race.barrel_on": "на бочке",
    "pic.race.fall": "слёт с бочки",
    "pic.race.penalty": "штраф",
    "pic.race.samosval": "самосвал 555",
    "pic.race.winner": "победа",
    "pic.race_title": "Гонка к 1000",
    "pic.axis_deal": "Раздача",
    "pic.axis_points": "Очки",
    "pic.barrel_line": "бочка 880",
    "pic.goal_line": "1000",
}
