"""Human texts for the house rules (договорённости) of Thousand.

Plain data, no logic: the names and one- or two-sentence descriptions that
``/rules``, the lobby's rule settings and the score sheet show to players,
in Russian and English. The rule ids are those of the product's rule book
(§5 and §6); ``docs/rules.md`` and ``docs/rules.en.md`` explain the same
rules at length and list every default.

``RULE_TEXTS``
    rule id -> ``(name_ru, text_ru, name_en, text_en)``. The name is short
    (a button or a heading); the text says what the rule does and, for
    choice rules, what each value means.

``CHOICE_TEXTS``
    rule id -> value -> ``(ru, en)``: short button labels for every rule
    whose type is a choice. Values are given as strings, so the numeric
    choices (``barrel_at``, ``players``) are keyed ``"880"``, ``"3"``, …

``RULE_ALIASES``
    lowercase words a player may type after ``/rules`` -> rule id. The
    rule ids themselves are not repeated here: look the word up in
    ``RULE_TEXTS`` first. Words with ``ё`` are listed with ``е`` too.
"""

from __future__ import annotations

RULE_TEXTS: dict[str, tuple[str, str, str, str]] = {
    # ----------------------------------------------------------- 5.1 Limits and bidding
    "bid_step": (
        "Шаг торговли",
        "На сколько очков поднимается ставка; все ставки кратны шагу. "
        "Обычно 5 (100, 105, 110…), некоторые играют по 10.",
        "Bid step",
        "How many points a raise adds; every bid is a multiple of it. "
        "Usually 5 (100, 105, 110…); some tables play by 10.",
    ),
    "bid_jumps": (
        "Прыжки в торговле",
        "Вкл.: ставку можно поднять сразу на несколько шагов, например со 100 на 120. "
        "Выкл.: каждая ставка ровно на шаг выше предыдущей («прыжки запрещены»).",
        "Bid jumps",
        "On: a raise may skip steps, e.g. from 100 straight to 120. "
        "Off: every bid is exactly one step above the previous one (“no jumps”).",
    ),
    "bid_needs_marriage": (
        "Больше 120 — с марьяжем",
        "Вкл.: выше 120 можно торговаться и заказывать, только имея марьяж: "
        "предел — 120 плюс марьяжи на руке. Выкл.: до предела торговли и без марьяжа.",
        "Over 120 needs a marriage",
        "On: you may bid or contract above 120 only with a marriage in hand; "
        "your limit is 120 plus the marriages you hold. Off: anyone may go up to the cap.",
    ),
    "max_bid": (
        "Предел торговли",
        "Самая высокая ставка и самый большой заказ, какие вообще возможны (обычно 300).",
        "Maximum bid",
        "The highest bid or contract anyone may make (usually 300).",
    ),
    "talon_hidden_on_100": (
        "Прикуп на сотне",
        "Вкл.: если первая рука взяла прикуп за 100, а все спасовали, прикуп никому "
        "не показывают. Выкл.: прикуп открывают всегда.",
        "Hidden talon at 100",
        "On: when the forehand gets the talon at 100 because everyone else passed, "
        "the talon is not shown. Off: the talon is always shown.",
    ),
    "pass_face_down": (
        "Снос втемную",
        "Вкл.: карту, которую играющий отдаёт вистующему, видит только тот, кому отдали. "
        "Выкл.: отданные карты видят все.",
        "Pass face down",
        "On: a card the declarer passes to a defender is seen only by that defender. "
        "Off: everyone sees the passed cards.",
    ),
    "min_total_to_bid": (
        "Молчание в минусе",
        "Игрок, у которого счёт ниже этого числа (0, −100, −200, −300…), не торгуется, "
        "только пасует (и не растемняет тёмную игру); первая рука при этом всё равно "
        "сидит на сотне. "
        "Нет — торгуются все.",
        "Silence below a score",
        "A player whose total is below this number (0, −100, −200, −300…) may not raise "
        "(nor unblind a dark game), only pass; a forehand so silenced still keeps their "
        "forced 100. "
        "None: everybody may bid.",
    ),
    "barrel_bidding": (
        "Торговля на бочке",
        "«Как обычно» (normal): сидящий на бочке торгуется наравне со всеми. "
        "«Прикуп без торговли» (sitter_takes_talon): каждый кон он сразу забирает прикуп "
        "со ставкой, нужной для победы (обычно 120).",
        "Bidding on the barrel",
        "“Normal bidding” (normal): the player on the barrel bids like everyone else. "
        "“Talon without bidding” (sitter_takes_talon): every deal they take the talon "
        "at once, at the bid they need to win (usually 120).",
    ),
    # ----------------------------------------------------------- 5.2 Play
    "marriage_first_lead": (
        "Марьяж с первого хода",
        "Вкл.: марьяж можно захвалить, ещё не взяв ни одной взятки, даже первым ходом кона "
        "(«простой марьяж»). Выкл.: сначала нужно взять хотя бы одну взятку.",
        "Marriage on first lead",
        "On: a marriage may be declared before you have won a trick, even on the deal's "
        "first lead. Off: you must win a trick first.",
    ),
    "ace_marriage": (
        "Тузовый марьяж",
        "Вкл.: четыре туза — марьяж за 200: его объявляют ходом с туза, взяв перед этим "
        "взятку не тузом; козырь не меняется. Четыре туза поднимают и предел торговли на 200.",
        "Ace marriage",
        "On: all four aces are a marriage worth 200, declared by leading an ace after "
        "winning a trick with some other card; trump does not change. "
        "Four aces also raise your bidding limit by 200.",
    ),
    "no_lead_foreign_trump": (
        "Не ходить с чужого козыря",
        "Вкл.: первым своим ходом в кону нельзя ходить в козырь, который захвалил "
        "другой игрок, если есть карты других мастей.",
        "No leading others' trump",
        "On: on your first lead of the deal you may not lead the trump someone else "
        "declared while you hold cards of other suits.",
    ),
    "must_lead_trump": (
        "Ходить с козыря",
        "Вкл.: первым своим ходом в кону игрок, у которого есть козыри, обязан ходить в козырь.",
        "Must lead trump",
        "On: on your first lead of the deal you must lead a trump if you hold one.",
    ),
    "last_trick_bonus": (
        "Очки за последнюю взятку",
        "Столько очков добавляют тому, кто взял последнюю взятку (в одном из источников 10). "
        "0 — ничего не добавляют.",
        "Last trick bonus",
        "Points added for whoever takes the last trick (10 in one source). "
        "0 means nothing is added.",
    ),
    # ----------------------------------------------------------- 5.3 Redeal
    "redeal_hand_below": (
        "Пересдача при слабой руке",
        "Если на руке после сдачи меньше этого числа очков, игрок может до торговли "
        "попросить пересдачу; 14 — значит 13 и меньше. Нет — такой пересдачи нет.",
        "Redeal on a weak hand",
        "A player whose dealt hand is worth fewer points than this may ask for a redeal "
        "before bidding; 14 means 13 or less. None: no such redeal.",
    ),
    "redeal_four_nines": (
        "Пересдача при четырёх девятках",
        "Вкл.: с четырьмя девятками на руке можно до торговли попросить пересдачу.",
        "Redeal on four nines",
        "On: a player holding all four nines may ask for a redeal before bidding.",
    ),
    "redeal_three_nines": (
        "Пересдача при трёх девятках",
        "С тремя девятками на руке до торговли пересдачу может попросить: "
        "«Любой игрок» (any) — любой; «Только первая рука» (forehand) — только тот, "
        "кто сидит на сотне; «Нельзя» (off) — никто.",
        "Redeal on three nines",
        "Who may ask for a redeal before bidding with three nines in hand: "
        "“Any player” (any) — anyone; “Forehand only” (forehand) — only the player "
        "sitting on 100; “Not allowed” (off) — nobody.",
    ),
    "redeal_four_jacks": (
        "Пересдача при четырёх валетах",
        "Вкл.: с четырьмя валетами на руке можно до торговли попросить пересдачу.",
        "Redeal on four jacks",
        "On: a player holding all four jacks may ask for a redeal before bidding.",
    ),
    "redeal_talon_below": (
        "Пересдача при слабом прикупе",
        "Играющий, увидев прикуп, может попросить пересдачу, если в прикупе меньше "
        "этого числа очков (обычно 5). Нет — такой пересдачи нет.",
        "Redeal on a weak talon",
        "The declarer, on seeing the talon, may ask for a redeal if it is worth fewer "
        "points than this (usually 5). None: no such redeal.",
    ),
    "redeal_talon_two_nines": (
        "Две девятки в прикупе",
        "Вкл.: если в прикупе две девятки (или больше), играющий может попросить пересдачу.",
        "Two nines in the talon",
        "On: the declarer may ask for a redeal if the talon holds two nines (or more).",
    ),
    "redeal_talon_three_jacks": (
        "Три валета в прикупе",
        "Вкл.: если в прикупе три валета, играющий может попросить пересдачу.",
        "Three jacks in the talon",
        "On: the declarer may ask for a redeal if the talon holds three jacks.",
    ),
    "redeal_talon_only_on_100": (
        "Пересдача по прикупу на сотне",
        "Вкл.: пересдачу из-за прикупа (мало очков, девятки, валеты) можно просить, "
        "только если прикуп взят за 100 без торговли.",
        "Talon redeal only at 100",
        "On: a redeal because of the talon (few points, nines, jacks) may be asked only "
        "when the talon was won at 100 with no raise.",
    ),
    "redeal_after_pass": (
        "Пересдача после сноса",
        "Вкл.: если после прикупа и сноса у игрока на руке четыре девятки, "
        "он может попросить пересдачу до своего первого хода картой, даже не в свою очередь.",
        "Redeal after the pass",
        "On: a player who holds four nines once the talon is taken and the cards are "
        "passed may ask for a redeal until they play their first card, even out of turn.",
    ),
    # ----------------------------------------------------------- 5.4 Concession
    "rospis": (
        "Роспись",
        "Вкл.: играющий, посмотрев прикуп, может не играть, а расписать игру: себе минус "
        "ставка, вистующим — их доля. Выкл.: заказанную игру надо играть.",
        "Concession",
        "On: after seeing the talon the declarer may concede instead of playing: "
        "they lose their bid and the defenders get their share. Off: the deal must be played.",
    ),
    "rospis_pays": (
        "Плата за роспись",
        "Сколько получает каждый вистующий: «Половина» (half) — половину ставки, "
        "округлённую вверх до 5 (за 105 — 55); «По 60» (sixty) — 60; «Половина, до 60» "
        "(half_max_60) — меньшее из двух. Вдвоём противник всегда получает 60.",
        "Concession payout",
        "What each defender gets: “Half the bid” (half) — half the bid rounded up to 5 "
        "(55 for 105); “60 each” (sixty) — 60; “Half, up to 60” (half_max_60) — the smaller "
        "of the two. With two players the opponent always gets 60.",
    ),
    "rospis_keeps_contract": (
        "Роспись без минуса",
        "Вкл.: расписавший не теряет ставку, а получает болт; вистующие получают свою долю "
        "как обычно. Обычно так играют вместе с ограничением числа росписей.",
        "Concession without loss",
        "On: a conceding declarer keeps their score and gets a bolt instead; the defenders "
        "are paid as usual. Usually played with a limit on concessions.",
    ),
    "rospis_limit": (
        "Число росписей",
        "Сколько раз за партию один игрок может расписать игру (в одном из источников 3). "
        "Нет — сколько угодно.",
        "Concession limit",
        "How many times per game one player may concede (3 in one source). None: no limit.",
    ),
    "rospis_third_penalty": (
        "Штраф за третью роспись",
        "Вкл.: каждая третья роспись игрока стоит ему ещё и штраф (обычно 120).",
        "Third concession fine",
        "On: every third concession by a player also costs them the penalty (usually 120).",
    ),
    "rospis_barrel_blocks_all": (
        "Бочка запрещает роспись",
        "Вкл.: пока кто-то сидит на бочке, расписывать не может никто. "
        "Выкл.: не может только сам сидящий на бочке.",
        "Barrel blocks concessions",
        "On: while someone sits on the barrel, nobody may concede. "
        "Off: only the player on the barrel may not.",
    ),
    # ----------------------------------------------------------- 5.5 Golden round
    "golden_round": (
        "Золотой кон",
        "Вкл.: первые коны партии, по одному на игрока, золотые: первая рука без торговли "
        "играет 120, прикуп не показывают, снос втемную. Заказ проверяют по настоящим "
        "очкам, а все результаты, штрафы и болты кона пишут вдвойне (роспись тоже).",
        "Golden round",
        "On: the first deals of the game, one per player, are golden: the forehand plays "
        "120 without bidding, the talon stays hidden, cards are passed face down. The "
        "contract is checked on the real points, then every result, penalty and bolt of "
        "the deal counts double (a concession too).",
    ),
    "golden_raise": (
        "Повышение на золотом",
        "Вкл.: на золотом кону играющий может после прикупа поднять заказ выше 120. "
        "Выкл.: играет ровно 120.",
        "Raise in the golden round",
        "On: in a golden deal the declarer may raise their contract above 120 after taking "
        "the talon. Off: they play exactly 120.",
    ),
    "golden_reset": (
        "Обнуление после золотого",
        "Вкл.: если на золотых конах никто не сыграл 120, все очки и счётчики (болты, "
        "росписи, слёты с бочки) обнуляются и начинается обычная игра. "
        "Выкл.: золотой круг играют заново, очки остаются.",
        "Reset after the golden round",
        "On: if nobody made 120 in the golden deals, all totals and counters (bolts, "
        "concessions, barrel falls) go back to 0 and normal play starts. "
        "Off: the golden round is played again and totals are kept.",
    ),
    "golden_double_bolts": (
        "Двойной болт на золотом",
        "Вкл.: болт на золотом кону считается за два болта.",
        "Double bolt when golden",
        "On: a bolt in a golden deal counts as two bolts.",
    ),
    # ----------------------------------------------------------- 5.6 Dark play
    "dark_play": (
        "Игра втемную",
        "Вкл.: первая рука может, не глядя в карты, объявить игру втемную: заказ 120 без "
        "торговли, прикуп не показывают, снос втемную. Заказ проверяют по настоящим очкам, "
        "а пишут всё вдвойне: играющему ±240, вистующим — их округлённые очки ×2.",
        "Dark play",
        "On: before looking at their cards the forehand may declare a dark game: contract "
        "120 with no bidding, talon hidden, cards passed face down. The contract is "
        "checked on the real points, then everything counts double: ±240 for the "
        "declarer, rounded points ×2 for the defenders.",
    ),
    "dark_unblind": (
        "Растемнение",
        "Вкл.: игрок с марьяжем на руке может отменить темную, сказав 125: у первой руки "
        "остаётся ставка 120, торговля идёт как обычно, прикуп открывают, снос в открытую.",
        "Unblinding",
        "On: a player holding a marriage may cancel the dark game by bidding 125: the "
        "forehand's 120 stays as their bid, bidding goes on as usual, the talon is shown "
        "and cards are passed face up.",
    ),
    "dark_unblind_takes_talon": (
        "Растемнение без торговли",
        "Вкл.: кто растемнил, сразу забирает прикуп со ставкой 125, больше никто "
        "не торгуется. Выкл.: торговля после 125 продолжается.",
        "Unblinder takes the talon",
        "On: the player who unblinds takes the talon at once at 125 and nobody bids "
        "further. Off: bidding goes on after the 125.",
    ),
    "dark_cap_240": (
        "Темная — не больше 240",
        "Вкл.: сыгранная темная приносит ровно 240. Выкл.: удвоенные взятые очки, "
        "округлённые до 5 (взял 131 — получил 260).",
        "Dark game capped at 240",
        "On: a made dark game scores exactly 240. Off: twice the points taken, rounded "
        "to 5 (131 taken scores 260).",
    ),
    "dark_on_barrel": (
        "Темная при бочке",
        "Вкл.: играть втемную можно и тогда, когда кто-то сидит на бочке. "
        "Выкл.: пока кто-то на бочке, темную не объявляют.",
        "Dark play with a barrel",
        "On: a dark game may be declared even while someone sits on the barrel. "
        "Off: no dark games while anyone is on the barrel.",
    ),
    "dark_rospis": (
        "Роспись втемную",
        "Вкл.: темную можно расписать: играющему −240, вистующим — двойная плата "
        "за роспись. Выкл.: темную надо играть.",
        "Conceding a dark game",
        "On: a dark game may be conceded: −240 for the declarer, double concession "
        "payouts for the defenders. Off: a dark game must be played.",
    ),
    "dark_double_bolts": (
        "Двойной болт втемную",
        "Вкл.: болт в темной игре считается за два болта.",
        "Double bolt in the dark",
        "On: a bolt in a dark game counts as two bolts.",
    ),
    # ----------------------------------------------------------- 5.7 Penalties and scoring
    "penalty": (
        "Размер штрафа",
        "Сколько стоит любой штраф: за болты, за слёт с бочки, за третью роспись (обычно 120).",
        "Penalty size",
        "What every fine costs: for bolts, for falling off the barrel, for a third "
        "concession (usually 120).",
    ),
    "round_declarer": (
        "Округление для играющего",
        "Вкл.: очки играющего округляют до 5 перед сравнением с заказом: заказал 100, "
        "взял 98 — сыграл. Выкл.: считают до очка, и 98 — это недобор.",
        "Round the declarer's points",
        "On: the declarer's points are rounded to 5 before they are compared with the "
        "contract: 98 against 100 is made. Off: every point counts, and 98 is short.",
    ),
    "bolts_limit": (
        "Болты до штрафа",
        "Какой по счёту болт стоит штраф (обычно каждый третий); после штрафа болты "
        "считаются заново.",
        "Bolts per penalty",
        "Which bolt costs the penalty (usually every third); after the fine the count "
        "starts again.",
    ),
    "bolts_in_a_row": (
        "Болты подряд",
        "Вкл.: штрафуют только болты подряд — кон без болта обнуляет счёт болтов. "
        "Выкл.: болты копятся всю партию.",
        "Bolts in a row",
        "On: only consecutive bolts count; a deal without a bolt resets the count. "
        "Off: bolts add up over the whole game.",
    ),
    "bolt_own_game_free": (
        "Своя игра без болта",
        "Вкл.: играющий не получает болт на своей игре, и его игра не прерывает болты подряд.",
        "No bolt in your own game",
        "On: the declarer gets no bolt in their own deal, and that deal does not break "
        "a run of bolts.",
    ),
    "samosval": (
        "Самосвал",
        "Вкл.: у кого после кона ровно 555 очков, у того счёт обнуляется.",
        "555 dump",
        "On: a player whose total is exactly 555 after a deal drops to 0.",
    ),
    "samosval_negative": (
        "Самосвал на минус 555",
        "Вкл.: ровно −555 после кона тоже обнуляет счёт.",
        "−555 dump",
        "On: a total of exactly −555 after a deal also drops to 0.",
    ),
    "four_nines_bonus": (
        "Премия за четыре девятки",
        "Вкл.: у кого после сноса на руке четыре девятки, тот получает +120, как бы ни сыграл "
        "кон, — играющий или вистующий, и при росписи; в золотом и тёмном кону +240.",
        "Four nines bonus",
        "On: a player holding all four nines after the pass scores +120, whatever "
        "happens in the deal — declarer or defender, conceded too; +240 in golden and "
        "dark deals.",
    ),
    # ----------------------------------------------------------- 5.8 Barrel
    "barrel": (
        "Бочка",
        "Вкл.: набравший 880 садится на бочку, и выиграть партию можно только с бочки, "
        "сыграв свою игру. Выкл.: побеждает первый, у кого 1000 или больше.",
        "Barrel",
        "On: a player who reaches 880 sits on the barrel, and the game can be won only "
        "from the barrel by making their own contract. Off: the first to reach 1000 wins.",
    ),
    "barrel_at": (
        "Где бочка",
        "С какого счёта садятся на бочку: 880 (обычно) или 900; выше бочки не пишут. "
        "Сидящему для победы нужен заказ 120 или 100 соответственно.",
        "Barrel level",
        "The total at which a player sits on the barrel: 880 (usual) or 900; nobody "
        "goes above it. The sitter then needs a contract of 120 or 100 to win.",
    ),
    "barrel_attempts": (
        "Попытки на бочке",
        "Сколько конов даётся сидящему на бочке (обычно 3); не выиграл за них — слетает "
        "со штрафом.",
        "Barrel tries",
        "How many deals the player on the barrel gets (usually 3); if they have not won "
        "by then, they fall off with a penalty.",
    ),
    "barrel_knock_off": (
        "Спихнуть с бочки",
        "Вкл.: кто садится на бочку, спихивает того, кто на ней сидел: тот слетает со "
        "штрафом. Выкл.: на бочке могут сидеть несколько, у каждого свои попытки.",
        "Knock off the barrel",
        "On: a player who climbs on the barrel knocks the sitter off, and the sitter "
        "falls with a penalty. Off: several may sit, each with their own tries.",
    ),
    "barrel_simultaneous_fall": (
        "Залезли вместе — слетели все",
        "Вкл.: если в одном кону на бочку залезли двое или трое, все откатываются "
        "на 880 − штраф (760) и не садятся. Выкл.: садится тот, у кого было больше "
        "(при равенстве — играющий, потом ближайший слева от сдающего), остальные откатываются.",
        "Joint climb: all fall",
        "On: if two or three players reach the barrel in the same deal, all go back to "
        "880 minus the penalty (760) and none sits. Off: the one with the higher total "
        "sits (on a tie the declarer, then the one nearest the dealer's left); the "
        "others go back.",
    ),
    "barrel_third_fall_zero": (
        "Третий слёт — на ноль",
        "Вкл.: на третьем слёте с бочки счёт обнуляется вместо штрафа, и слёты "
        "считаются заново. Выкл.: каждый слёт стоит обычный штраф.",
        "Third fall to zero",
        "On: the third fall off the barrel drops the total to 0 instead of the penalty, "
        "and falls are counted again from zero. Off: every fall costs the usual penalty.",
    ),
    "barrel_fail_costs_contract": (
        "Недобор на бочке",
        "Вкл.: сидящий на бочке, не сыгравший свой заказ, пишет минус заказ и слетает. "
        "Выкл.: недобор ничего не стоит, сгорает только попытка.",
        "Failing on the barrel",
        "On: a player on the barrel who fails their contract scores minus the contract "
        "and falls off. Off: the failure costs nothing but the try.",
    ),
    "barrel_freezes_defenders": (
        "Вистующие стоят на месте",
        "Вкл.: когда играет сидящий на бочке, вистующие в этом кону ничего не пишут "
        "и болтов не получают.",
        "Barrel freezes defenders",
        "On: when the player on the barrel is the declarer, the defenders score nothing "
        "and get no bolts in that deal.",
    ),
    "win_over_1000": (
        "Больше 1000 для победы",
        "Вкл.: для победы надо перевалить за 1000, поэтому сидящему на бочке нужен "
        "заказ от 125 (от 105 при бочке на 900). Выкл.: хватает ровно 1000.",
        "Over 1000 to win",
        "On: to win you must pass 1000, so the player on the barrel needs a contract "
        "of 125 or more (105 with the barrel at 900). Off: exactly 1000 is enough.",
    ),
    # ----------------------------------------------------------- 6 Two and four players
    "players": (
        "Число игроков",
        "Сколько человек за столом: 2, 3 (обычная игра) или 4 — тогда сдающий "
        "в кону не играет и «сидит на прикупе».",
        "Players",
        "How many play: 2, 3 (the usual game) or 4 — then the dealer sits the deal "
        "out “on the talon”.",
    ),
    "two_player_mode": (
        "Игра вдвоём",
        "«Два прикупа» (two_talons): по 10 карт, два прикупа по 2, торговля как втроём. "
        "«С добором, без торгов» (stock): по 6 карт, после каждой взятки добирают из колоды, "
        "марьяж хвалят любым ходом, бочки нет.",
        "Two-player game",
        "“Two talons” (two_talons): 10 cards each, two talons of 2, bidding as for three. "
        "“Stock, no bidding” (stock): 6 cards each, both draw from the stock after every "
        "trick, a marriage may be declared on any lead, no barrel.",
    ),
    "two_player_pass": (
        "Снос вдвоём",
        "Вдвоём с двумя прикупами: «Сбросить две» (discard_two) — играющий откладывает "
        "две карты, они не идут никому; «Отдать одну» (give_one) — отдаёт одну карту "
        "противнику, у обоих по 11.",
        "Two-player pass",
        "Two players with two talons: “Discard two” (discard_two) — the declarer puts two "
        "cards aside, and they count for nobody; “Give one” (give_one) — they give one card "
        "to the opponent, and both hold 11.",
    ),
    "unused_talon_to_last_trick": (
        "Второй прикуп — последней взятке",
        "Вдвоём с двумя прикупами: вкл. — нетронутый прикуп достаётся тому, кто взял "
        "последнюю взятку; выкл. — он не идёт никому.",
        "Closed talon to the last trick",
        "Two players with two talons: on — the unused talon goes to whoever takes the "
        "last trick; off — it counts for nobody.",
    ),
    "dealer_scores_talon": (
        "Сдающий пишет прикуп",
        "Вчетвером: вкл. — сдающий, который в кону не играет, пишет себе очки карт прикупа "
        "(без округления) и марьяж, если он лежит в прикупе; выкл. — не пишет ничего.",
        "Dealer scores the talon",
        "Four players: on — the dealer, sitting the deal out, scores the card points of "
        "the talon (not rounded) plus a marriage lying in it; off — they score nothing.",
    ),
}

CHOICE_TEXTS: dict[str, dict[str, tuple[str, str]]] = {
    "barrel_bidding": {
        "normal": ("Как обычно", "Normal bidding"),
        "sitter_takes_talon": ("Прикуп без торговли", "Talon without bidding"),
    },
    "redeal_three_nines": {
        "any": ("Любой игрок", "Any player"),
        "forehand": ("Только первая рука", "Forehand only"),
        "off": ("Нельзя", "Not allowed"),
    },
    "rospis_pays": {
        "half": ("Половина", "Half the bid"),
        "sixty": ("По 60", "60 each"),
        "half_max_60": ("Половина, до 60", "Half, up to 60"),
    },
    "barrel_at": {
        "880": ("880", "880"),
        "900": ("900", "900"),
    },
    "players": {
        "2": ("Вдвоём", "Two"),
        "3": ("Втроём", "Three"),
        "4": ("Вчетвером", "Four"),
    },
    "two_player_mode": {
        "two_talons": ("Два прикупа", "Two talons"),
        "stock": ("С добором, без торгов", "Stock, no bidding"),
    },
    "two_player_pass": {
        "discard_two": ("Сбросить две", "Discard two"),
        "give_one": ("Отдать одну", "Give one"),
    },
}

RULE_ALIASES: dict[str, str] = {
    # 5.1 bidding
    "шаг": "bid_step",
    "шаг торговли": "bid_step",
    "step": "bid_step",
    "bid step": "bid_step",
    "прыжки": "bid_jumps",
    "прыжки в торговле": "bid_jumps",
    "jumps": "bid_jumps",
    "больше 120": "bid_needs_marriage",
    "торговля без марьяжа": "bid_needs_marriage",
    "торг без марьяжа": "bid_needs_marriage",
    "over 120": "bid_needs_marriage",
    "предел": "max_bid",
    "предел торговли": "max_bid",
    "максимум": "max_bid",
    "300": "max_bid",
    "max bid": "max_bid",
    "прикуп на сотне": "talon_hidden_on_100",
    "прикуп на 100": "talon_hidden_on_100",
    "hidden talon": "talon_hidden_on_100",
    "снос": "pass_face_down",
    "снос втемную": "pass_face_down",
    "pass": "pass_face_down",
    "молчание": "min_total_to_bid",
    "в минусе": "min_total_to_bid",
    "торговля в минусе": "min_total_to_bid",
    "silence": "min_total_to_bid",
    "торговля на бочке": "barrel_bidding",
    "barrel bidding": "barrel_bidding",
    # 5.2 play
    "марьяж с первого хода": "marriage_first_lead",
    "хвалить с первого хода": "marriage_first_lead",
    "простой марьяж": "marriage_first_lead",
    "first lead": "marriage_first_lead",
    "тузовый": "ace_marriage",
    "тузовый марьяж": "ace_marriage",
    "четыре туза": "ace_marriage",
    "тузы": "ace_marriage",
    "ace marriage": "ace_marriage",
    "aces": "ace_marriage",
    "чужой козырь": "no_lead_foreign_trump",
    "с чужого козыря": "no_lead_foreign_trump",
    "ходить с козыря": "must_lead_trump",
    "ходить с козырей": "must_lead_trump",
    "lead trump": "must_lead_trump",
    "последняя взятка": "last_trick_bonus",
    "last trick": "last_trick_bonus",
    # 5.3 redeal
    "пересдача": "redeal_hand_below",
    "пересдать": "redeal_hand_below",
    "слабая рука": "redeal_hand_below",
    "redeal": "redeal_hand_below",
    "четыре девятки": "redeal_four_nines",
    "4 девятки": "redeal_four_nines",
    "four nines": "redeal_four_nines",
    "три девятки": "redeal_three_nines",
    "3 девятки": "redeal_three_nines",
    "three nines": "redeal_three_nines",
    "четыре валета": "redeal_four_jacks",
    "4 валета": "redeal_four_jacks",
    "four jacks": "redeal_four_jacks",
    "слабый прикуп": "redeal_talon_below",
    "пустой прикуп": "redeal_talon_below",
    "weak talon": "redeal_talon_below",
    "две девятки": "redeal_talon_two_nines",
    "две девятки в прикупе": "redeal_talon_two_nines",
    "two nines": "redeal_talon_two_nines",
    "три валета": "redeal_talon_three_jacks",
    "три валета в прикупе": "redeal_talon_three_jacks",
    "three jacks": "redeal_talon_three_jacks",
    "пересдача на сотне": "redeal_talon_only_on_100",
    "пересдача только на 100": "redeal_talon_only_on_100",
    "пересдача после сноса": "redeal_after_pass",
    "redeal after pass": "redeal_after_pass",
    # 5.4 concession
    "роспись": "rospis",
    "расписать": "rospis",
    "расписать игру": "rospis",
    "concession": "rospis",
    "concede": "rospis",
    "плата за роспись": "rospis_pays",
    "роспись по 60": "rospis_pays",
    "по 60": "rospis_pays",
    "payout": "rospis_pays",
    "concession payout": "rospis_pays",
    "роспись без минуса": "rospis_keeps_contract",
    "число росписей": "rospis_limit",
    "три росписи": "rospis_limit",
    "concession limit": "rospis_limit",
    "третья роспись": "rospis_third_penalty",
    "штраф за роспись": "rospis_third_penalty",
    "роспись на бочке": "rospis_barrel_blocks_all",
    # 5.5 golden round
    "золотой": "golden_round",
    "золотой кон": "golden_round",
    "золото": "golden_round",
    "golden": "golden_round",
    "golden round": "golden_round",
    "повышение на золотом": "golden_raise",
    "обнуление": "golden_reset",
    "обнуление после золотого": "golden_reset",
    "болт на золотом": "golden_double_bolts",
    # 5.6 dark play
    "темная": "dark_play",
    "тёмная": "dark_play",
    "темную": "dark_play",
    "тёмную": "dark_play",
    "втемную": "dark_play",
    "втёмную": "dark_play",
    "игра втемную": "dark_play",
    "игра втёмную": "dark_play",
    "темнить": "dark_play",
    "dark": "dark_play",
    "dark play": "dark_play",
    "blind": "dark_play",
    "растемнение": "dark_unblind",
    "растемнить": "dark_unblind",
    "unblind": "dark_unblind",
    "240": "dark_cap_240",
    "темная на бочке": "dark_on_barrel",
    "тёмная на бочке": "dark_on_barrel",
    "роспись втемную": "dark_rospis",
    "роспись втёмную": "dark_rospis",
    "болт втемную": "dark_double_bolts",
    "болт втёмную": "dark_double_bolts",
    # 5.7 penalties and scoring
    "штраф": "penalty",
    "fine": "penalty",
    "округление": "round_declarer",
    "rounding": "round_declarer",
    "болт": "bolts_limit",
    "болты": "bolts_limit",
    "палка": "bolts_limit",
    "палки": "bolts_limit",
    "bolt": "bolts_limit",
    "bolts": "bolts_limit",
    "болты подряд": "bolts_in_a_row",
    "три болта подряд": "bolts_in_a_row",
    "bolts in a row": "bolts_in_a_row",
    "болт на своей игре": "bolt_own_game_free",
    "своя игра": "bolt_own_game_free",
    "самосвал": "samosval",
    "555": "samosval",
    "dump": "samosval",
    "минус 555": "samosval_negative",
    "-555": "samosval_negative",
    "−555": "samosval_negative",
    "премия за девятки": "four_nines_bonus",
    "бонус за девятки": "four_nines_bonus",
    "nines bonus": "four_nines_bonus",
    # 5.8 barrel
    "бочка": "barrel",
    "на бочке": "barrel",
    "880": "barrel_at",
    "900": "barrel_at",
    "бочка 900": "barrel_at",
    "barrel at": "barrel_at",
    "попытки": "barrel_attempts",
    "попытки на бочке": "barrel_attempts",
    "tries": "barrel_attempts",
    "спихнуть": "barrel_knock_off",
    "спихнуть с бочки": "barrel_knock_off",
    "knock off": "barrel_knock_off",
    "одновременно": "barrel_simultaneous_fall",
    "двое на бочке": "barrel_simultaneous_fall",
    "слёт": "barrel_third_fall_zero",
    "слет": "barrel_third_fall_zero",
    "третий слёт": "barrel_third_fall_zero",
    "третий слет": "barrel_third_fall_zero",
    "на ноль": "barrel_third_fall_zero",
    "три бочки": "barrel_third_fall_zero",
    "third fall": "barrel_third_fall_zero",
    "недобор на бочке": "barrel_fail_costs_contract",
    "стоят на месте": "barrel_freezes_defenders",
    "заморозка": "barrel_freezes_defenders",
    "больше 1000": "win_over_1000",
    "1005": "win_over_1000",
    "over 1000": "win_over_1000",
    # 6 two and four players
    "игроки": "players",
    "число игроков": "players",
    "вчетвером": "players",
    "вдвоём": "two_player_mode",
    "вдвоем": "two_player_mode",
    "на двоих": "two_player_mode",
    "two players": "two_player_mode",
    "stock": "two_player_mode",
    "снос вдвоём": "two_player_pass",
    "снос вдвоем": "two_player_pass",
    "второй прикуп": "unused_talon_to_last_trick",
    "second talon": "unused_talon_to_last_trick",
    "на прикупе": "dealer_scores_talon",
    "сдающий": "dealer_scores_talon",
    "four players": "players",
}
