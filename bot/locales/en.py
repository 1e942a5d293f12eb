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
        "/score — the score sheet\n"
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
    "lobby.joined": "{name} sat down at the table",
    "lobby.left": "{name} left the table",
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
    "btn.players": "👥 {n}",
    "btn.preset": "📜 {preset}",
    "btn.level": "🎚 {level}",
    "btn.settings": "⚙️ Rules",
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
    "event.unblind": "{name} unblinded the game: {bid}",
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
    "summary.made": "Deal {n} — {name}: contract {contract}, took {points} ✓ {score}",
    "summary.failed": "Deal {n} — {name}: contract {contract}, took {points} ✗ {score}",
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
    "note.frozen": "{name}: while the barrel sitter plays, points do not count ({value})",
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
    "note.samosval": "{name}: the 555 dump — exactly 555, back to zero",
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
    "score.legend": "<i>| bolt · ! fine · 🛢 barrel · ↓ fall · ♻ 555 dump · ✓ made · ✗ failed</i>",
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
}
