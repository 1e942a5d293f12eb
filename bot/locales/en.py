"""English texts.  The same keys and placeholders as ``ru.py`` (a test checks it)."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # ------------------------------------------------------------------ words
    "you": "you",
    "and_more": "and {n} more",
    "value.on": "on",
    "value.off": "off",
    "value.none": "none",
    "preset.classic": "classic",
    "preset.full": "full rules",
    "level.random": "random",
    "level.normal": "normal",
    "level.hard": "strong",
    "computer.names": "Vera,Gleb,Dina,George,Zoe,Leo",
    "rules.changed": "{preset} (changed: {changes})",
    # ------------------------------------------------------------------ commands
    "cmd.newgame": "New game",
    "cmd.score": "Score sheet",
    "cmd.rules": "Rules (/rules barrel — one rule)",
    "cmd.help": "How to play with the bot",
    "cmd.leave": "Leave the table (a computer plays on for you)",
    "cmd.stop": "Stop the game",
    "start.hello": (
        "Hi, {name}! This is Thousand.\n\n"
        "• /newgame here — a game against two computer players.\n"
        "• /newgame in a group — a table with friends: press “Sit down”.\n"
        "Your cards always come here, to this private chat."
    ),
    "help": (
        "🃏 <b>Thousand</b>\n"
        "/newgame — a new game (in a group: a table; in private: against the computer; "
        "also /newgame 2, 3 or 4 and classic/full)\n"
        "/score — the score sheet (🖼 — as pictures); /export — the record as a file\n"
        "/stats — your stats and rating; /top — the players' table\n"
        "/rules — the table's rules; /rules barrel — one rule\n"
        "/leave — leave the table: a computer plays on for you\n"
        "/stop — stop the game (the table's creator or an admin)\n\n"
        "Your cards and move buttons come to your private chat with the bot; "
        "the group shows the table."
    ),
    "newgame.exists": "There is a game here already. /stop stops it.",
    "newgame.bad_args": "I did not understand: {reason}",
    "join.done": "You sit at the table “{title}”. Wait for the start — your cards come here.",
    "join.gone": "This table is not waiting for players any more.",
    "leave.not_seated": "You are not at a table.",
    "leave.done": "{name}: the seat goes to a computer player.",
    "stop.none": "There is no game here.",
    "stop.not_allowed": "Only the table's creator or an admin may stop the game.",
    "stop.done": "The game is stopped. Its score sheet is kept: /score",
    "reminder": "⏰ Your move at the table “{title}”! {seconds} s left, then the computer moves.",
    # ------------------------------------------------------------------ lobby
    "lobby.title": "🃏 <b>Thousand — a new game</b>",
    "lobby.rules": "Rules: {rules}",
    "lobby.computer_level": "Computer: {level}",
    "lobby.free": "— free —",
    "lobby.hint": "Press “Sit down”. Your cards come to your private chat with the bot.",
    "lobby.hint_full": "Every seat is taken — the table's creator may start.",
    "lobby.joined": "{name} is at the table",
    "lobby.left": "{name} leaves the table",
    "lobby.creator_not_started": "{name}, press “Sit down” to open the bot and take a seat",
    "lobby.cancelled": "🃏 The game was cancelled.",
    "settings.title": "⚙️ <b>The table's rules</b>",
    "settings.pick": "Choose a section:",
    "settings.now": "Now: <b>{value}</b>",
    "section.bidding": "Bidding",
    "section.play": "Play",
    "section.redeal": "Redeal",
    "section.rospis": "Concession",
    "section.golden": "Golden round",
    "section.dark": "Dark play",
    "section.scoring": "Penalties and scoring",
    "section.barrel": "Barrel",
    "section.table": "Table",
    # ------------------------------------------------------------------ buttons
    "btn.join": "➕ Sit down",
    "btn.leave": "➖ Stand up",
    "btn.add_computer": "🤖 Add computer",
    "btn.drop_computer": "➖🤖 Remove",
    "btn.players": "👥 Players: {n}",
    "btn.preset": "📜 Rules: {preset}",
    "btn.level": "🎚 Computer: {level}",
    "btn.settings": "⚙️ All rules",
    "btn.start": "▶️ Start",
    "btn.cancel": "✖️ Cancel",
    "btn.back": "⬅️ Back",
    "btn.sections": "⬅️ Sections",
    "btn.done": "✅ Done",
    "btn.reset_rules": "↩️ As the preset",
    "btn.my_cards": "🂠 My cards",
    "btn.score": "📋 Score",
    "btn.dark": "🌑 Play dark",
    "btn.light": "👀 Look at my cards",
    "btn.redeal": "🔄 Redeal",
    "btn.redeal_talon": "🔄 Redeal: {reason}",
    "btn.keep": "✋ Play",
    "btn.pass": "Pass",
    "btn.unblind": "🌗 Unblind: {bid}",
    "btn.talon": "Talon {n}",
    "btn.take_talon": "Take the talon",
    "btn.contract_first": "Play {bid}",
    "btn.concede": "📝 Concede: −{bid}, {pay} each",
    # ------------------------------------------------------------------ the table
    "table.head": "🃏 <b>Deal {n}</b> · dealer {dealer}",
    "table.golden": "✨ golden round",
    "table.sits_out": "(sits out)",
    "table.bolt": "bolt",
    "table.bolts": "bolt ×{n}",
    "table.pass": "pass",
    "table.bids": "Bidding: {bids}",
    "table.declarer": "Declarer {name}, bid {bid}",
    "table.contract": "Contract: {name}, {bid}",
    "table.declarer_me": "You are the declarer, bid {bid}",
    "table.contract_me": "Your contract: {bid}",
    "table.talon": "Talon: {cards}",
    "table.talon_yours": "Talon (only you see it): {cards}",
    "table.talon_closed": "The talon stays closed",
    "table.two_talons": "Two talons of two cards: the declarer takes one",
    "table.stock": "Stock: {n}",
    "table.trump": "Trump {suit} · marriages: {marriages}",
    "table.marriages": "Marriages: {marriages}",
    "table.aces": "aces",
    "table.trick": "Trick: {cards}",
    "table.last_trick": "Last trick: {cards} → {winner}",
    "table.tricks": "Tricks: {counts}",
    "table.turn": "To move: {name} ⏳",
    "event.dark": "{name} plays dark",
    "event.unblind": "{name}: unblinded, {bid}",
    "event.timeout": "{name}: time ran out, the computer moved",
    "event.auto": "{name}: the computer plays on",
    "event.redeal": "redeal — {name}: {reason}",
    "redeal.four_nines": "four nines",
    "redeal.three_nines": "three nines",
    "redeal.four_jacks": "four jacks",
    "redeal.hand_below": "too few points in hand",
    "redeal.talon_below": "an empty talon",
    "redeal.talon_two_nines": "two nines in the talon",
    "redeal.talon_three_jacks": "three jacks in the talon",
    "redeal.four_nines_after_pass": "four nines after the pass",
    "redeal.hand": "a weak hand",
    "redeal.talon": "a poor talon",
    # ------------------------------------------------------------------ the hand
    "hand.cards": "Your cards: {cards}",
    "hand.closed": "Your cards are still face down.",
    "hand.received": "You were given: {card}",
    "hand.gave": "You gave: {cards}",
    "hand.discarded": "You put back: {cards}",
    "hand.waiting": "{name} to move",
    "hand.left": "You left the table: a computer plays for you.",
    "prompt.dark": "Play dark? Contract 120, everything doubled, the talon stays hidden.",
    "prompt.redeal": "You may ask for a redeal: {reason}.",
    "prompt.bid": "Bid {bid} ({name}). Your call:",
    "prompt.bid_pass_only": "Bid {bid} ({name}). You can only pass:",
    "prompt.unblind": "{name} plays dark ({bid}). Unblind?",
    "prompt.talon": "Choose a talon:",
    "prompt.take_talon": "The talon is yours: take it.",
    "prompt.give": "Give a card to {name}:",
    "prompt.discard": "Put back a card ({k} of 2):",
    "prompt.contract": "Your bid is {bid}. Name the contract:",
    "prompt.play_lead": "Your lead:",
    "prompt.play": "Your move:",
    # ------------------------------------------------------------------ popups
    "popup.stale": "This button is out of date",
    "popup.unknown": "Unknown button",
    "popup.error": "Something went wrong, please try again",
    "popup.not_seated": "You are not at this table",
    "popup.not_your_turn": "It is {name}'s turn",
    "popup.auto": "A computer plays for you now",
    "popup.only_creator": "Only the table's creator or an admin may do this",
    "popup.already_seated": "You are at the table already",
    "popup.table_full": "Every seat is taken",
    "popup.not_full": "Not every seat is taken",
    "popup.no_computer": "There is no computer at the table",
    "popup.too_many_seated": "More players are seated — somebody must stand up first",
    "popup.bad_rule": "Not possible: {reason}",
    "popup.hand": "Your cards: {cards}",
    "popup.received": "(you were given {card})",
    "popup.no_cards": "No cards in hand",
    "popup.totals": "Score: {totals}",
    # ------------------------------------------------------------------ results
    "summary.head": "Deal {n}:",
    "summary.made": "Deal {n} — {name}: contract {contract}, took {points} — made, {score}",
    "summary.failed": "Deal {n} — {name}: contract {contract}, took {points} — failed, {score}",
    "summary.conceded": "Deal {n} — {name}: conceded {bid}, {score}",
    "summary.totals": "Score: {totals}",
    "summary.winner": "🏆 {name} wins — {total}!",
    "summary.game_over": "The game is over. Score sheet: /score · a new game: /newgame",
    "game.stopped": "⏹ The game was stopped.",
    "note.golden_double": "golden round: everything doubled",
    "note.dark_double": "dark game: everything doubled",
    "note.stock_points": "{name}: {value}",
    "note.rospis_keeps": "{name}: conceded without a minus, but a bolt",
    "note.conceded": "{name}: conceded, {value}",
    "note.rospis_paid": "{name}: for the concession {value}",
    "note.rospis_penalty": "{name}: third concession, fine {value}",
    "note.all_tricks_120": "{name}: every trick at 120 — the contract counts as made",
    "note.contract_made": "{name}: contract made, {value}",
    "note.contract_failed": "{name}: contract failed, {value}",
    "note.defender_points": "{name}: {value}",
    "note.four_nines_bonus": "{name}: four nines, bonus {value}",
    "note.talon_score": "{name} (sitting out): the talon's points {value}",
    "note.sitter_nothing": "{name}: on the barrel points do not count ({value})",
    "note.frozen": "{name}: a game from the barrel — defenders' points do not count ({value})",
    "note.bolt": "{name}: a bolt (no. {value} in the game)",
    "note.bolt_penalty": "{name}: three bolts — fine {value}",
    "note.tie_one_more": "a tie over 1000 — one more deal",
    "note.barrel_capped": "{name}: {value} over the barrel does not count",
    "note.barrel_on": "{name}: on the barrel ({value})",
    "note.barrel_back": "{name}: two may not climb the barrel together — back to {value}",
    "note.knocked_off": "{name}: knocked off the barrel",
    "note.barrel_failed": "{name}: failed on the barrel — a fall",
    "note.barrel_try": "{name}: try on the barrel no. {value}",
    "note.barrel_tries_out": "{name}: no tries left on the barrel",
    "note.third_fall_zero": "{name}: third fall from the barrel — the total goes to zero",
    "note.fall": "{name}: fall from the barrel, {value}",
    "note.samosval": "{name}: exactly {value} — the 555 dump, back to zero",
    "note.winner": "🏆 {name}: wins with {value}",
    "note.golden_reset": "nobody made the golden round — all totals back to zero",
    "note.golden_again": "nobody made the golden round — it is played again",
    # ------------------------------------------------------------------ /score
    "score.none": "No game was played here yet. /newgame starts one.",
    "score.empty": "No deal has been played yet.",
    "score.finished": "📋 The last game's score sheet",
    "score.stopped": "📋 The last game's score sheet (stopped)",
    "score.dealer": "dlr",
    "score.game": "game",
    "score.redeal": "redeal",
    "score.conceded": "conceded",
    "score.skipped": "… first deals hidden: {k}",
    "score.last": "Deal {n}:",
    "score.legend": "<i>Marks: {marks}</i>",
    "score.labels": "<i>{labels}</i>",
    "mark.bolt": "bolt",
    "mark.penalty": "fine",
    "mark.barrel_on": "on the barrel",
    "mark.barrel_back": "sent back from the barrel",
    "mark.fall": "fall",
    "mark.samosval": "555 dump (→ 0)",
    "mark.winner": "winner",
    "mark.made": "made",
    "mark.failed": "failed",
    "mark.golden": "golden deal",
    "mark.dark": "dark game",
    # ------------------------------------------------------------------ /rules
    "rules.summary": (
        "🃏 <b>Thousand in short</b>\n"
        "24 cards: 9, jack (2), queen (3), king (4), 10 (10), ace (11). "
        "The goal is 1000 points.\n"
        "Seven cards each, three to the talon. The forehand opens at 100; the others raise "
        "by 5 or pass. Above 120 only with a marriage in hand.\n"
        "The auction's winner takes the talon, gives one card to each opponent and names "
        "the contract (or concedes). Taking at least the contract scores it, otherwise it "
        "is subtracted. Defenders score their points rounded to 5.\n"
        "Marriage (king and queen of a suit): ♥ 100, ♦ 80, ♣ 60, ♠ 40. Declare it by leading "
        "the king or queen after winning a trick; that suit becomes trump.\n"
        "A bolt is a deal without a trick; three bolts cost 120. Exactly 555 drops to zero.\n"
        "At 880 you sit on the barrel: three tries to make your own contract and win, "
        "otherwise you fall (−120)."
    ),
    "rules.table_head": "<b>This table's rules</b> ({preset}):",
    "rules.table_classic": "classic, nothing changed",
    "rules.more": "/rules word — one rule, e.g. /rules barrel or /rules dark",
    "rules.unknown": "I do not know the rule “{word}”. Try /rules barrel or /rules concession.",
    "rule.one": "<b>{name}</b> (<code>{id}</code>)\n{text}\n\nAt this table: <b>{value}</b> "
                "(by default: {default})",
    # ------------------------------------------------------------------ guards (issue 8)
    "guard.wrong_place": "This button is not from here: press it where the bot showed it",
    "guard.not_saved": "The move was not saved: the database is busy. Please try again in a minute",
    "guard.not_saved_cmd": (
        "That could not be saved: the database is busy. Please try again in a minute."
    ),
    "guard.broken": (
        "⚠️ Game #{game} could not be restored after a restart. Its record is kept; "
        "/newgame starts a new game."
    ),
    "guard.expired_lobby": (
        "🃏 The table is closed: nobody sat down for a long time. /newgame opens a new "
        "one."
    ),
    "guard.expired_game": (
        "🃏 The game is stopped: nobody has moved for a long time. Its record is kept: "
        "/score"
    ),
    # ------------------------------------------------------------------ issue 10
    "hint.unknown_command": (
        "I do not know that command. Commands: /newgame, /score, /rules, /help, /leave, /stop."
    ),
    "hint.private_text": (
        "I understand commands and buttons. /newgame — a new game against the computer, "
        "/help — how to play."
    ),
    "added.group": (
        "🃏 Hi! I run games of Thousand right in this chat.\n"
        "• /newgame opens a table: players press “Sit down”; computers can join too.\n"
        "• Everyone gets their cards and move buttons in a private chat with the bot; "
        "this chat shows the table.\n"
        "• /rules — the rules, /help — all commands."
    ),
    "lang.current": "This chat speaks {name}. To change: /lang ru — Russian, /lang en — English.",
    "lang.set": "Done: I speak English here now.",
    "lang.unknown": "I do not know the language “{code}”. There are two: /lang ru — Russian, "
                    "/lang en — English.",
    "lang.not_allowed": "Only the table's creator or an admin may change the group's language.",
    "lang.name": "English",
    "table.none": "There is no game here now. /newgame starts one.",
    "table.moved": "🃏 The table is below. The old message is not updated any more.",
    "table.waiting": "The game has not started yet: the table above is waiting for players.",
    "end.title": "🏁 <b>The game is over</b> — the final score sheet",
    "end.rematch": "🔁 Play again",
    "end.new_table": "🃏 New table",
    "end.rematch_done": "🔁 Another game with the same players — the table is below.",
    "autopilot.on": "⏰ {name} does not answer — the computer moves for now",
    "autopilot.off": "👋 {name} is back in the game",
    "autopilot.private": (
        "⏰ Your time ran out — the computer moves for you. Make a move yourself and the "
        "seat is yours again."
    ),
    "solo.pick_level": "Choose the computer players' level:",
    "solo.pick_size": "How many players at the table?",
    "solo.players": "{n} players",
    "solo.level": "🎚 {level}",
    # ------------------------------------------------------------------ refusals (engine codes)
    "refuse.seat": "seat {n}",
    "refuse.phase.dealing": "the deal",
    "refuse.phase.dark": "the choice of a dark game",
    "refuse.phase.redeal": "a redeal",
    "refuse.phase.bidding": "the bidding",
    "refuse.phase.talon": "the talon",
    "refuse.phase.passing": "the passing of cards",
    "refuse.phase.contract": "naming the contract",
    "refuse.phase.play": "the play",
    "refuse.phase.game_over": "the end of the game",
    "refuse.kind.dark": "a dark game",
    "refuse.kind.light": "a light game",
    "refuse.kind.redeal": "a redeal",
    "refuse.kind.keep": "keeping the hand",
    "refuse.kind.bid": "a bid",
    "refuse.kind.pass": "a pass",
    "refuse.kind.talon": "taking a talon",
    "refuse.kind.give": "giving a card",
    "refuse.kind.discard": "putting a card back",
    "refuse.kind.contract": "a contract",
    "refuse.kind.concede": "a concession",
    "refuse.kind.play": "playing a card",
    "refuse.kind.declare": "declaring a marriage",
    "refuse.not_now": "Not possible now: {kind} (now: {phase}).",
    "refuse.action_unknown": "Unknown move: “{text}”.",
    "refuse.card_unknown": "Unknown card: “{text}”.",
    "refuse.action_format": "A move is written “seat:move”, not “{text}”.",
    "refuse.game_over": "The game is over.",
    "refuse.no_deal": "The cards have not been dealt yet.",
    "refuse.deal_not_now": "Cards are dealt only between deals (now: {phase}).",
    "refuse.no_seat": "A table of {n} has no seat {seat}.",
    "refuse.not_your_turn": "It is {to_act}'s turn, not {seat}'s.",
    "refuse.card_not_in_hand": "{card} is not in {seat}'s hand.",
    "refuse.redeal_not_now": (
        "A redeal may be asked only with one's first decision of the deal and a hand that "
        "qualifies (with redeal_after_pass: holding four nines after the pass, until one's "
        "first card)."
    ),
    "refuse.redeal_talon_not_allowed": "This talon gives no right to a redeal.",
    "refuse.talon_choice": "Choose talon 1 or 2.",
    "refuse.talon_one": "There is one talon: take it.",
    "refuse.must_follow": "You must follow suit: {suit}.",
    "refuse.must_trump": "Void in the suit led: you must play a trump ({suit}).",
    "refuse.must_lead_trump": (
        "Rule {rule}: on one's first lead of the deal, holding trumps, one must lead a trump "
        "({suit})."
    ),
    "refuse.no_lead_foreign_trump": (
        "Rule {rule}: on one's first lead of the deal one may not lead the trump {suit} another"
        " player declared while holding other cards."
    ),
    "refuse.lead_not_now": "{card} may not be led now.",
    "refuse.declare_not_in_play": "A marriage is declared in play, by the player on lead.",
    "refuse.declare_not_on_lead": (
        "A marriage can be declared only by the player on lead: now you answer a lead."
    ),
    "refuse.declare_needs_trick": (
        "A marriage can be declared only by the player on lead after taking a trick in this "
        "deal."
    ),
    "refuse.declare_no_marriage": "A marriage needs the king and queen of {suit} in hand.",
    "refuse.declare_not_king_queen": (
        "A marriage is declared by leading its king or queen, not {card}."
    ),
    "refuse.declare_ace_marriage_off": "This table has no ace marriage (rule {rule}).",
    "refuse.declare_no_four_aces": "The ace marriage needs all four aces in hand.",
    "refuse.declare_ace_marriage_done": "The ace marriage was already declared.",
    "refuse.declare_ace_needs_trick": (
        "The ace marriage can be declared only after taking a trick not won with an ace."
    ),
    "refuse.concede_rule_off": "Concession is not played at this table (rule {rule}).",
    "refuse.concede_sitter": "A player on the barrel may not concede.",
    "refuse.concede_barrel_blocks_all": (
        "Rule {rule}: while a player sits on the barrel nobody may concede."
    ),
    "refuse.concede_limit": "Rule {rule}: no more than {limit} concessions in a game.",
    "refuse.concede_dark": "A dark game may not be conceded (rule {rule}).",
    "refuse.bid_min_total": (
        "Rule {rule}: with a total of {total} (below {least}) you may only pass — no raise, no "
        "unblinding."
    ),
    "refuse.unblind_needs_marriage": "A dark game can be unblinded only with a marriage in hand.",
    "refuse.unblind_only_125": "A dark game is unblinded by a bid of exactly {bid}.",
    "refuse.bid_step": "Bids go in steps of {step}.",
    "refuse.bid_too_low": "Too low: the least bid now is {least}.",
    "refuse.bid_above_max": "Rule {rule}: nothing above {most}.",
    "refuse.bid_needs_marriage": (
        "This hand allows at most {most}: above 120 a bid needs a marriage in hand."
    ),
    "refuse.bid_no_jumps": "Rule {rule} is off: each raise is one step, to {least}.",
    "refuse.contract_dark": "A dark game is played at 120.",
    "refuse.contract_golden": "A golden deal is played at 120 (rule {rule} is off).",
    "refuse.contract_below_bid": "The contract cannot be below your bid of {bid}.",
    "refuse.contract_needs_marriage": (
        "This hand allows a contract of at most {most}: above 120 it needs a marriage."
    ),
    "refuse.layout_hands": "The deal needs {want} hands, not {got}.",
    "refuse.layout_hand_size": "Seat {seat} must get {want} cards, not {got}.",
    "refuse.layout_talon_size": "The talon must have {want} cards, not {got}.",
    "refuse.layout_card_number": "No card has the number {number}.",
    "refuse.layout_duplicate": "{card} is dealt twice.",
    "refuse.rules": "These rules cannot be played.",
    "refuse.unknown_preset": "There is no rule set “{preset}”.",
    "refuse.unknown_rule": "There is no rule “{rule}”.",
    "refuse.newgame_unknown_word": (
        "Unknown word “{word}”: use 2, 3, 4, classic, full or rule=value."
    ),
    "refuse.rule_value": "Rule {rule}: the value “{value}” cannot be used.",
    "refuse.rule_needs": "Rule {rule} works only together with {parent}.",
    "refuse.rule_needs_value": "Rule {rule} works only with {parent} = {value}.",
    "refuse.rule_positive_multiple": "Rule {rule}: a positive multiple of 5 is needed.",
    "refuse.rule_multiple_range": "Rule {rule}: a multiple of 5 from {lo} to {hi} is needed.",
    "refuse.rule_range": "Rule {rule}: a number from {lo} to {hi} is needed.",
    "refuse.rule_at_least": "Rule {rule}: at least {lo} is needed.",
    "refuse.rules_contradict": (
        "Rules {rule} and {other} contradict each other when another player declared the trump:"
        " choose one."
    ),
    "refuse.inert_stock": (
        "Rule {rule} does nothing in the stock game (two_player_mode = stock): it has no "
        "bidding and no house rules; only players and two_player_mode apply."
    ),
    "refuse.inert_two_players_talon_shown": (
        "Rule {rule} does nothing with two players (players = 2): the chosen talon is always "
        "shown."
    ),
    "refuse.inert_two_players_rospis": (
        "Rule {rule} does nothing with two players (players = 2): a concession always pays the "
        "opponent 60."
    ),
    "refuse.inert_two_card_talon": (
        "Rule {rule} does nothing with two players (players = 2): a talon of two cards cannot "
        "hold three jacks."
    ),
    "refuse.inert_pass_face_down": (
        "Rule {rule} does nothing with two players and two_player_pass = discard_two: cards put"
        " back are never shown."
    ),
    "refuse.inert_simultaneous_fall": (
        "Rule {rule} does nothing with barrel_knock_off off: without knock-offs every player "
        "that climbs on sits."
    ),
    "refuse.inert_third_rospis": (
        "Rule {rule} does nothing with rospis_limit = {limit}: there is no third concession."
    ),
    # ------------------------------------------------------------------ issue 10 (service)
    "solo.play": "▶️ Play",
    "solo.started": "🃏 A game against the computer: {n} players, level: {level}. Rules: {rules}",
    "end.already": "A game is already on here",
    "end.not_seated": "A rematch can be started by a player of this table",
    "autopilot.off_popup": "Welcome back! The seat is yours again",
    "cmd.lang": "The bot's language (/lang ru — русский)",
    "cmd.table": "Show the table at the bottom of the chat",
    # ------------------------------------------------------------------ stats and ratings
    "cmd.stats": "My stats and rating",
    "cmd.top": "The players' table (in private: against the computer)",
    "stats.none": "{name}, you have no finished games yet. /newgame starts one.",
    "stats.title": "📊 <b>Stats: {name}</b>",
    "stats.rating": "Rating: <b>{rating}</b>",
    "stats.games": "Games: {games}, wins: {wins} ({percent}%)",
    "stats.place": "Average place: {place}",
    "stats.declared": "Games declared: {declared}, made: {made}",
    "stats.falls": "Falls off the barrel: {falls}, bolts: {bolts}",
    "top.none": "No finished games in this chat yet. /newgame starts one.",
    "top.title": "🏆 <b>Players of this chat</b>",
    "top.row": "{n}. {name} — <b>{rating}</b> (games: {games}, wins: {wins})",
    "top.legend": "<i>One rating across all chats; a newcomer has 1000. /stats for more.</i>",
    "top.vs_none": "You have no finished games against the computer yet. /newgame starts one.",
    "top.vs_title": "🤖 <b>You against the computer</b>",
    "top.vs_mine": "Your rating: <b>{rating}</b>",
    "top.vs_row": ("Level “{level}” (rating {rating}): games {games}, wins {wins} "
                   "({percent}%), average place {place}"),
    "btn.forced_on": "⏩ Only move: played at once",
    "btn.forced_off": "✋ Only move: by hand",
    # ------------------------------------------------------------------ pictures, records
    "cmd.export": "The last game's record as a file",
    "pictures.button": "🖼 Pictures",
    "pictures.busy": "The pictures are being drawn…",
    "pictures.recent": "These pictures are already in the chat above.",
    "pictures.caption_sheet": "📋 Score sheet",
    "pictures.caption_race": "📈 Race to 1000",
    "export.caption": (
        "📎 Record of game #{n}. Send this file to me in a private chat to see its score sheet."
    ),
    "export.none": "No game has been played here yet. /newgame starts one.",
    "export.playing": "The record file comes when the game ends: it shows every card.",
    "export.too_big": "The file is bigger than 1 MB — not a game record.",
    "export.broken": "This file holds no game record that can be read.",
    "export.not_downloaded": "The file was not downloaded; please send it again.",
    "export.sheet_title": "📋 Score sheet from the file",
    # ------------------------------------------------------------------ hints and analysis
    "btn.hint": "💡 Hint",
    "btn.analyse": "🔍 Analysis",
    "btn.hints_on": "💡 Hints: on",
    "btn.hints_off": "💡 Hints: off",
    "hint.line": "💡 {action}: {why}",
    "hint.late": "💡 No hint in time — try again",
    "hint.off": "Hints are off at this table",
    "hint.not_your_turn": "It is not your turn — nothing to hint",
    "hint.act.declare": "{card} with the marriage",
    "hint.act.give": "give {card}",
    "hint.act.discard": "discard {card}",
    "hint.act.bid": "bid {value}",
    "hint.act.contract": "contract {value}",
    "hint.act.talon": "talon {value}",
    "hint.act.pass": "pass",
    "hint.act.redeal": "redeal",
    "hint.act.keep": "no redeal",
    "hint.act.dark": "dark",
    "hint.act.light": "light",
    "hint.act.concede": "concede",
    "why.only": "the only legal move",
    "why.light": "dark doubles the risk",
    "why.redeal": "a weak hand (estimate {value})",
    "why.no_redeal": "the hand is strong enough",
    "why.bid": "made in {pct}% of deals",
    "why.pass": "bid {value} is made in only {pct}% of deals",
    "why.redeal_talon": "with this talon the bid cannot be made",
    "why.give_loose": "{card} has no partner — the hand is stronger without it",
    "why.give_cheap": "the card the hand needs least",
    "why.contract": "made in {pct}% of deals",
    "why.concede": "the bid is made in only {pct}% of deals",
    "why.talon": "the hand estimate says so",
    "why.estimate": "the hand estimate says so",
    "why.marriage": "a marriage worth {value}, and the suit becomes trump",
    "why.lead_ace": "the ace takes the trick",
    "why.top_left": "takes the trick: {gone} is already gone",
    "why.lead_top": "the highest card left in the suit takes the trick",
    "why.draw_trumps": "draws trumps",
    "why.lead_low": "a low lead, keeping the high cards",
    "why.trumps_in": "trumps the trick",
    "why.takes_last": "takes the trick, playing last",
    "why.takes": "beats the trick",
    "why.load_partner": "the partner has the trick — add points",
    "why.cheap": "the trick cannot be won — the cheapest card",
    "why.made_pct": "the contract is made in {pct}% of deals",
    "why.beaten_pct": "the contract fails in {pct}% of deals",
    "why.made_pct_fit": "in {pct}% of the deals that fit the bidding and the play, "
                        "the contract is made",
    "why.beaten_pct_fit": "in {pct}% of the deals that fit the bidding and the play, "
                          "the contract fails",
    "analysis.head": "Deal {n}, contract {contract} ({name}):",
    "analysis.makeable": "with every hand open it can be made — up to {points} points.",
    "analysis.not_makeable": "with every hand open it cannot be made — {points} points at most.",
    "analysis.makeable_only": "with every hand open it can be made.",
    "analysis.not_makeable_only": "with every hand open it cannot be made.",
    "analysis.mistake_declarer": (
        "First mistake: {name}, trick {trick}, {card} — after it the contract cannot be made."
    ),
    "analysis.mistake_defenders": (
        "First mistake: {name}, trick {trick}, {card} — after it the contract cannot be beaten."
    ),
    "analysis.no_mistake": "No mistake changed the outcome.",
    "analysis.partial": "Not every card was checked: out of time.",
    "analysis.late": "🔍 No analysis in time — try again",
    "analysis.no_play": "🔍 No cards were played in this deal — nothing to analyse",
    "analysis.sent": "🔍 The analysis is in the chat",
    # ------------------------------------------------------------------ on the pictures
    "pic.sheet_title": "Score sheet",
    "pic.deal_no": "#",
    "pic.game": "Game",
    "pic.deal": "deal",
    "pic.total": "total",
    "pic.redeal": "redeal",
    "pic.no_game": "—",
    "pic.place": "Place",
    "pic.empty": "No deal has been played yet.",
    "pic.skipped": "… first deals hidden: {k}",
    "pic.deals": "deals: {n}",
    "pic.legend.made": "made",
    "pic.legend.failed": "failed",
    "pic.legend.conceded": "conceded",
    "pic.legend.bolt": "bolt",
    "pic.legend.penalty": "fine",
    "pic.legend.barrel_on": "on the barrel (1 2 3 — tries)",
    "pic.legend.fall": "fell off the barrel",
    "pic.legend.barrel_back": "pushed back from 880",
    "pic.legend.third_fall": "third fall — to 0",
    "pic.legend.samosval": "555 dump",
    "pic.legend.winner": "won",
    "pic.legend.golden": "golden",
    "pic.legend.dark": "dark",
    "pic.legend.sitting_out": "deals (sits out)",
    "pic.race.barrel_on": "climbed the barrel",
    "pic.race.fall": "fell off the barrel",
    "pic.race.penalty": "fine",
    "pic.race.samosval": "555 dump",
    "pic.race.winner": "won",
    "pic.race_title": "Race to 1000",
    "pic.axis_deal": "Deal",
    "pic.axis_points": "Points",
    "pic.barrel_line": "barrel 880",
    "pic.goal_line": "1000",
}
