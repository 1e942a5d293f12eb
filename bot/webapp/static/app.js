// The table page. Every word on it comes from the server (the catalogs, in the person's
// language): `T` holds them; nothing here is a text of any language.
"use strict";
(function () {
  var tg = (window.Telegram && window.Telegram.WebApp) || null;
  var T = {};
  var token = null;
  var game = null;
  var ws = null;
  var V = null; // the seat's whole view, as the server sent it
  var lifted = null; // the card code lifted by a first tap
  var choice = null; // a lifted card that may declare a marriage: {card, declare, play}
  var picked = null; // the value on the bid / contract stepper (kept while it stays legal)
  var nextId = 1;
  var RETRY_FIRST = 500, RETRY_MAX = 10000;
  var retry = RETRY_FIRST; // the next reconnect's delay: doubling, with jitter
  var retryTimer = null;
  var lost = false; // the socket dropped: the banner says so until a view comes
  var shownSummary = 0; // the number of sheet rows whose summary was shown
  var clockTimer = null;
  var $ = function (id) { return document.getElementById(id); };

  function fmt(key, params) {
    var text = T[key] || "";
    return text.replace(/\{(\w+)\}/g, function (m, name) {
      return params && params[name] !== undefined ? String(params[name]) : m;
    });
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function haptic(kind, style) {
    var h = tg && tg.HapticFeedback;
    if (!h) return;
    try {
      if (kind === "impact") h.impactOccurred(style || "light");
      else if (kind === "note") h.notificationOccurred(style);
      else h.selectionChanged();
    } catch (e) { /* an old client */ }
  }

  function toast(text, ms) {
    var t = $("toast");
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(function () { t.hidden = true; }, ms || 2600);
  }

  function message(text, sit) {
    var m = $("message");
    m.textContent = text;
    m.hidden = !text;
    if (text && sit) { // a lobby with a free seat: sit down from here
      var b = el("button", "sit", fmt("sit"));
      b.type = "button";
      b.onclick = function () { sitDown(); };
      m.appendChild(b);
    }
  }

  function banner(on) {
    lost = on;
    $("banner").textContent = on ? fmt("reconnecting") : "";
    $("banner").hidden = !on;
    document.body.classList.toggle("lost", on); // (the table moves down under it)
  }

  function api(path, body) {
    return fetch(path, {
      method: body ? "POST" : "GET",
      headers: Object.assign({ "Content-Type": "application/json" },
                             token ? { Authorization: "Bearer " + token } : {}),
      body: body ? JSON.stringify(body) : undefined,
    }).then(function (r) { return r.json(); });
  }

  // ------------------------------------------------------------------ start

  function start() {
    if (tg) {
      tg.ready();
      if (tg.expand) tg.expand();
      if (tg.disableVerticalSwipes) tg.disableVerticalSwipes();
      if (tg.onEvent) {
        // back in the foreground: the whole view again (a dead socket: reconnect now)
        tg.onEvent("activated", function () { if (!send({ type: "sync" })) reconnectNow(); });
        tg.onEvent("themeChanged", function () { if (V) render(); });
      }
      if (tg.BackButton && tg.BackButton.onClick) tg.BackButton.onClick(closeOverlays);
    }
    var params = new URLSearchParams(location.search);
    var init = tg && tg.initData;
    if (!init) {
      var lang = (navigator.language || "ru").slice(0, 2);
      api("api/texts?lang=" + encodeURIComponent(lang)).then(function (r) {
        T = r.texts || {};
        message(fmt("outside"));
      });
      return;
    }
    api("api/session", { init: init }).then(function (r) {
      if (!r.ok) { message(r.text); return; }
      T = r.texts;
      token = r.token;
      document.documentElement.lang = r.lang;
      document.title = fmt("title");
      $("sheet-title").textContent = fmt("sheet");
      $("sheet-close").textContent = fmt("close");
      $("summary-title").textContent = fmt("summary");
      $("summary-close").textContent = fmt("close");
      $("summary-analyse").textContent = fmt("analyse");
      $("four-label").textContent = fmt("four_colours");
      // a group's link: the table the SIGNED start_param names (the server read it)
      var wanted = r.game || Number(params.get("game") || 0) || (r.games || [])[0];
      if (!wanted) { message(fmt("no_game")); return; }
      game = wanted;
      message(fmt("connecting"));
      connect();
    }).catch(function () { message(fmt("err.offline") || "…"); });
    $("sheet-btn").onclick = openSheet;
    $("sheet-close").onclick = closeOverlays;
    $("summary-close").onclick = closeOverlays;
    $("summary-analyse").onclick = function () {
      if (V && V.summary_deal) act({ kind: "analyse", deal: V.summary_deal });
    };
    $("hint-btn").onclick = function () { act({ kind: "hint" }); };
    setupFour();
    $("toast").onclick = function () { $("toast").hidden = true; }; // a tap dismisses it
  }

  // the four-colour deck: a setting of the person (Telegram's CloudStorage, else this device)
  function setFour(on) {
    document.documentElement.classList.toggle("four", on);
    $("four").checked = on;
  }

  function setupFour() {
    var cloud = tg && tg.CloudStorage;
    try { setFour(localStorage.getItem("four") === "1"); } catch (e) { /* private mode */ }
    if (cloud && cloud.getItem) {
      cloud.getItem("four", function (err, value) { if (!err && value) setFour(value === "1"); });
    }
    $("four").onchange = function () {
      var on = $("four").checked;
      setFour(on);
      try { localStorage.setItem("four", on ? "1" : "0"); } catch (e) { /* private mode */ }
      if (cloud && cloud.setItem) cloud.setItem("four", on ? "1" : "0");
      if (V) render();
    };
  }

  // ------------------------------------------------------------------ the socket

  function connect() {
    retryTimer = null;
    var url = new URL("ws", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(url.href);
    ws.onopen = function () {
      ws.send(JSON.stringify({ type: "hello", token: token, game: game }));
    };
    ws.onmessage = function (e) {
      var msg = JSON.parse(e.data);
      if (msg.type === "view") {
        retry = RETRY_FIRST;
        if (lost) { banner(false); toast(fmt("reconnected"), 1500); }
        message("");
        var before = V;
        V = msg.view;
        onView(before);
      } else if (msg.type === "result") {
        var intent = pending[msg.id];
        delete pending[msg.id];
        if (!msg.ok) { haptic("note", "error"); toast(msg.text); }
        else if (msg.text) { toast(msg.text, 6000); }
        // the next game: started by this touch, or already by another player of the table
        if (intent && intent.kind === "rematch" && (msg.ok || msg.code === "already")) followRematch(10);
      } else if (msg.type === "watchers") {
        if (V) { V.watchers = msg.n; drawWatchers(); }
      } else if (msg.type === "refused") {
        ws.onclose = null;
        banner(false);
        message(msg.text, msg.code === "lobby");
        // until "Play" is pressed, or the lobby fills up
        if (msg.code === "not_started" || msg.code === "lobby") retryTimer = setTimeout(connect, 2000);
      }
    };
    ws.onclose = function () {
      ws = null;
      banner(true);
      // 0.5 s doubling to 10 s, each with up to a quarter more or less (no herd after a restart)
      var delay = retry * (0.75 + Math.random() * 0.5);
      retry = Math.min(retry * 2, RETRY_MAX);
      retryTimer = setTimeout(connect, delay);
    };
  }

  function reconnectNow() {
    if (ws || !retryTimer || !token) return;
    clearTimeout(retryTimer);
    connect();
  }

  function sitDown() {
    // a latecomer takes a free seat: the lobby's "join" or the table's 🪑, through the bot
    if (ws && V) { act({ kind: "sit" }); return; }
    api("api/act", { game: game, version: 0, intent: { kind: "sit" } }).then(function (r) {
      if (!r.ok) { haptic("note", "error"); toast(r.text); return; }
      if (r.text) toast(r.text, 4000);
      if (retryTimer) { clearTimeout(retryTimer); connect(); }
    });
  }

  function send(msg) {
    if (ws && ws.readyState === 1) { ws.send(JSON.stringify(msg)); return true; }
    return false;
  }

  var pending = {}; // request id -> intent, for what follows an accepted one

  function act(intent) {
    if (!V) return;
    var id = nextId++;
    pending[id] = intent;
    if (!send({ type: "act", id: id, version: V.version, intent: intent })) {
      toast(fmt("err.offline"));
    }
  }

  function followRematch(tries) {
    // the rematch is a new game: the page moves to it once the bot has started it
    api("api/games").then(function (r) {
      var next = (r.games || [])[0];
      if (next && next !== game) {
        game = next;
        V = null;
        shownSummary = 0;
        if (ws) { ws.onclose = null; ws.close(); }
        message(fmt("connecting"));
        connect();
      } else if (tries > 0) {
        setTimeout(function () { followRematch(tries - 1); }, 500);
      }
    });
  }

  // ------------------------------------------------------------------ what changed

  function onView(before) {
    if (before && before.version !== V.version) { lifted = null; choice = null; }
    if (!before || before.phase !== V.phase || before.number !== V.number) picked = null;
    if (before && V.phase === "play" && V.last_trick && V.trick.length === 0 &&
        before.trick.length > 0 && V.last_trick.winner === V.seat) {
      haptic("note", "success"); // a trick won
    }
    if (tg && tg.enableClosingConfirmation) {
      if (V.over) tg.disableClosingConfirmation(); else tg.enableClosingConfirmation();
    }
    if (V.sheet.length > shownSummary && V.summary) {
      if (shownSummary > 0 || (before && before.sheet.length < V.sheet.length)) {
        $("summary-body").textContent = V.summary;
        $("summary-analyse").hidden = !!V.spectator; // (🔍 shows every hand: the seated only)
        showOverlay("summary");
      }
      shownSummary = V.sheet.length;
    }
    render();
  }

  // ------------------------------------------------------------------ drawing

  // the seat at the bottom: mine, or for a spectator the first seat (its hand face down)
  function me() { return V.seat >= 0 ? V.seat : 0; }

  function place(seat) {
    // me at the bottom; the others clockwise from my left: left, (top), right; at a table
    // of four the dealer who sits the deal out is at the top
    var bottom = me();
    if (seat === bottom) return "bottom";
    if (V.n === 2) return "top";
    var out = V.n === 4 && V.active.length === 3 && V.active.indexOf(seat) < 0;
    if (out) return "top";
    var order = [];
    for (var r = 1; r < V.n; r++) {
      var s = (bottom + r) % V.n;
      if (!(V.n === 4 && V.active.length === 3 && V.active.indexOf(s) < 0)) order.push(s);
    }
    var i = order.indexOf(seat);
    if (order.length === 3) return ["left", "top", "right"][i];
    return i === 0 ? "left" : "right";
  }

  function name(seat) {
    return seat === V.seat ? fmt("you") : (V.seats[seat] ? V.seats[seat].name : "?");
  }

  function render() {
    var v = V;
    document.body.dataset.version = String(v.version); // (for tests and debugging)
    document.body.dataset.game = String(v.game);
    document.body.dataset.phase = v.phase;
    // the top line: the deal, the contract (or the bid), the trump, the running points
    $("deal").textContent = v.number ? fmt("deal", { n: v.number }) : "";
    var c = [];
    if (v.contract && v.declarer >= 0) {
      c.push(fmt("contract", { value: v.contract }) + " · " + name(v.declarer));
    } else if (v.bid && v.bidder >= 0) {
      c.push(fmt("bid_now", { bid: v.bid, name: name(v.bidder) }));
    }
    if (v.trump) c.push(fmt("trump") + " " + Cards.suit(v.trump));
    if (v.running !== null && v.running !== undefined && v.contract) {
      c.push(fmt("points", { taken: v.running, contract: v.contract }));
    }
    $("contract").textContent = c.join(" · ");
    // the seats around the table
    ["left", "top", "right"].forEach(function (p) { $("seat-" + p).hidden = true; });
    for (var s = 0; s < v.n; s++) {
      if (s === me()) continue;
      drawSeat(s, $("seat-" + place(s)));
    }
    drawMiddle();
    drawStatus();
    drawPanel();
    drawHand();
    var mine = v.seats[me()];
    $("me").textContent = "";
    $("me").appendChild(el("span", "", (mine.computer ? "\uD83E\uDD16 " : "") + mine.name));
    $("me").appendChild(el("span", "total", num(mine.total) + (mine.barrel ? " \uD83D\uDEE2" : "")));
    if (v.dealer === me() && v.number) $("me").appendChild(el("span", "dealer", fmt("dealer")));
    $("hint-btn").hidden = !(v.hints && v.legal.length && !v.over);
    drawWatchers();
  }

  function drawWatchers() {
    var n = V.watchers || 0;
    $("watchers").textContent = n ? fmt("watchers", { n: n }) : "";
    $("watchers").hidden = !n;
  }

  function drawSeat(s, box) {
    var info = V.seats[s];
    box.hidden = false;
    box.textContent = "";
    box.classList.toggle("turn", V.to_act === s && !V.over);
    box.appendChild(el("div", "name", (info.computer ? "\uD83E\uDD16 " : "") + info.name));
    var line = el("div", "line");
    line.appendChild(document.createTextNode(num(info.total) + (info.barrel ? " \uD83D\uDEE2" : "") + " "));
    if (info.cards) {
      var backs = el("span", "backs");
      for (var i = 0; i < Math.min(info.cards, 8); i++) {
        var m = el("span", "mini");
        m.innerHTML = Cards.back();
        backs.appendChild(m);
      }
      line.appendChild(backs);
      line.appendChild(document.createTextNode("\u2009\u00D7" + info.cards));
    }
    box.appendChild(line);
    var tag = null;
    if (V.phase === "bidding" && info.bid !== null) {
      tag = el("span", "tag" + (info.bid ? " bid" : ""), info.bid ? String(info.bid) : fmt("passed"));
    } else if (V.declarer === s && V.contract) {
      tag = el("span", "tag bid", String(V.contract));
    } else if (V.dealer === s && V.number) {
      tag = el("span", "tag", fmt("dealer"));
    }
    if (tag) box.appendChild(tag);
  }

  function cardSlot(code, cls) {
    var d = el("div", "slot " + (cls || ""));
    d.innerHTML = code ? Cards.face(code) : Cards.back();
    return d;
  }

  function drawMiddle() {
    var v = V;
    var box = $("trick");
    box.textContent = "";
    box.className = "";
    var note = "";
    if (v.phase === "play" && v.trick.length) {
      v.trick.forEach(function (p) { box.appendChild(cardSlot(p[1], place(p[0]))); });
    } else if (v.phase === "play" && v.last_trick) {
      box.className = "last";
      v.last_trick.cards.forEach(function (p) {
        box.appendChild(cardSlot(p[1], place(p[0]) + (p[0] === v.last_trick.winner ? " won" : "")));
      });
      note = fmt("last_trick", { name: name(v.last_trick.winner) });
    } else if (v.deal_last_trick && (v.over || (!v.talon.length && !v.received))) {
      // the finished deal's last trick stays in the middle until the next deal's lead
      // (as every trick stays until the next one); face-up talon cards come first — but
      // at the game's end there is no next deal: the last trick, not that deal's talon
      var done = v.deal_last_trick;
      box.className = "last";
      done.cards.forEach(function (p) {
        box.appendChild(cardSlot(p[1], place(p[0]) + (p[0] === done.winner ? " won" : "")));
      });
      note = fmt("last_trick", { name: name(done.winner) });
    } else if (v.talon.length) {
      box.className = "talon";
      v.talon.forEach(function (code) { box.appendChild(cardSlot(code)); });
      note = fmt("talon");
    } else if (v.talon_size && (v.phase === "bidding" || v.phase === "dark" || v.phase === "talon")) {
      box.className = "talon";
      for (var i = 0; i < v.talon_size; i++) box.appendChild(cardSlot(null));
      note = fmt("talon");
    }
    if (v.received && !v.last_trick && !v.trick.length) {
      note = fmt("received") + ": " + rankSuit(v.received);
    }
    if (v.over) {
      var w = v.winner >= 0 ? v.seats[v.winner].name : "";
      note = fmt("game_over") + (w ? " · \uD83C\uDFC6 " + w : "");
    }
    $("note").textContent = note;
  }

  function num(x) { return String(x).replace("-", "\u2212"); }

  function rankSuit(code) { return code.slice(0, -1) + Cards.suit(code.slice(-1)); }

  function drawStatus() {
    var v = V;
    var mine = v.to_act === v.seat && v.seat >= 0 && !v.over;
    $("status").classList.toggle("mine", mine);
    var turn = v.over ? "" : mine ? fmt("turn_you")
      : v.to_act >= 0 ? fmt("turn_of", { name: name(v.to_act) }) : "";
    if (v.spectator) turn = fmt("spectator") + (turn ? " · " + turn : "");
    $("turn").textContent = turn;
    clearInterval(clockTimer);
    var tick = function () {
      if (!V.deadline || V.over) { $("clock").textContent = ""; return; }
      var left = Math.max(0, Math.round(V.deadline - Date.now() / 1000));
      $("clock").textContent = "\u23F1 " + Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
    };
    tick();
    if (v.deadline) clockTimer = setInterval(tick, 1000);
  }

  function button(text, intent, cls) {
    var b = el("button", cls || "", text);
    b.type = "button";
    b.onclick = function () { haptic("impact", "light"); act(intent); };
    return b;
  }

  // A value among many (a bid, a contract: up to forty of them) on one line: − 125 + and the
  // button that makes it.  A tap steps to the next legal value; held, it runs.
  function stepper(acts, key) {
    acts = acts.slice().sort(function (a, b) { return a.value - b.value; });
    var values = acts.map(function (a) { return a.value; });
    var i = values.indexOf(picked);
    if (i < 0) i = 0;
    picked = values[i];
    var box = el("div", "stepper");
    var minus = el("button", "alt step", "−"), plus = el("button", "alt step", "+");
    var shown = el("span", "value"), go = el("button", "chip go");
    minus.type = plus.type = go.type = "button";
    minus.setAttribute("aria-label", fmt("less"));
    plus.setAttribute("aria-label", fmt("more"));
    function show() {
      picked = values[i];
      shown.textContent = String(values[i]);
      go.textContent = fmt(key, { value: values[i] });
      minus.disabled = i === 0;
      plus.disabled = i === values.length - 1;
    }
    function step(d) {
      var j = Math.max(0, Math.min(values.length - 1, i + d));
      if (j === i) return false;
      i = j;
      show();
      haptic("select");
      return true;
    }
    [[minus, -1], [plus, 1]].forEach(function (pair) {
      var b = pair[0], d = pair[1], hold = null, ran = false;
      var stop = function () { clearTimeout(hold); clearInterval(hold); hold = null; };
      b.onpointerdown = function () {
        ran = false;
        stop();
        hold = setTimeout(function () {
          hold = setInterval(function () { ran = true; if (!step(d)) stop(); }, 70);
        }, 400);
      };
      b.onpointerup = b.onpointerleave = b.onpointercancel = stop;
      b.onclick = function () { if (!ran) step(d); ran = false; };
    });
    go.onclick = function () { haptic("impact", "light"); act(acts[i]); };
    show();
    box.appendChild(minus);
    box.appendChild(shown);
    box.appendChild(plus);
    box.appendChild(go);
    return box;
  }

  function kinds() {
    var k = {};
    V.legal.concat(V.offers).forEach(function (a) { (k[a.kind] = k[a.kind] || []).push(a); });
    return k;
  }

  function giveTarget() {
    var v = V;
    if (v.n === 2) return v.active.filter(function (s) { return s !== v.seat; })[0];
    var given = v.gave.map(function (g) { return g[0]; });
    var i = v.active.indexOf(v.declarer);
    for (var k = 1; k < v.active.length; k++) {
      var s = v.active[(i + k) % v.active.length];
      if (given.indexOf(s) < 0) return s;
    }
    return -1;
  }

  function drawPanel() {
    var v = V, p = $("panel"), k = kinds();
    p.textContent = "";
    var prompt = function (text) { p.appendChild(el("div", "prompt", text)); };
    if (v.spectator) { // watching: nothing to do but take a free seat where there is one
      if (v.can_sit) {
        var sb0 = el("button", "", fmt("sit"));
        sb0.type = "button";
        sb0.onclick = function () { haptic("impact", "light"); sitDown(); };
        p.appendChild(sb0);
      }
      return;
    }
    if (v.over) {
      if (v.rematch) p.appendChild(button(fmt("rematch"), { kind: "rematch" }));
      var sb = el("button", "alt", fmt("sheet"));
      sb.onclick = openSheet;
      p.appendChild(sb);
      return;
    }
    if (k.dark) {
      p.appendChild(button(fmt("dark"), { kind: "dark" }));
      p.appendChild(button(fmt("light"), { kind: "light" }, "alt"));
      return;
    }
    if (v.phase === "bidding" && (k.bid || k.pass)) {
      prompt(v.bid && v.bidder >= 0 ? fmt("bid_now", { bid: v.bid, name: name(v.bidder) }) : fmt("bid_first"));
      var chips = el("div", "chips");
      if (k.pass) chips.appendChild(button(fmt("pass"), { kind: "pass" }, "chip alt"));
      if (k.bid) chips.appendChild(stepper(k.bid, "bid_value"));
      p.appendChild(chips);
    }
    if (v.phase === "talon" && k.talon) {
      k.talon.forEach(function (a) {
        p.appendChild(button(v.n === 2 ? fmt("talon_n", { n: a.value }) : fmt("take_talon"), a));
      });
    }
    if (v.phase === "passing" && (k.give || k.discard)) {
      prompt(k.give ? fmt("give_to", { name: name(giveTarget()) }) : fmt("discard_prompt"));
      if (lifted) {
        var kind = k.give ? "give" : "discard";
        p.appendChild(button(fmt(kind) + " " + rankSuit(lifted), { kind: kind, card: lifted }));
      }
    }
    if (v.phase === "contract" && (k.contract || k.concede)) {
      prompt(fmt("contract_prompt", { bid: v.bid }));
      var cc = el("div", "chips");
      if (k.contract) cc.appendChild(stepper(k.contract, "play_contract"));
      if (k.concede) cc.appendChild(button(fmt("concede"), { kind: "concede" }, "chip alt"));
      p.appendChild(cc);
    }
    if (v.phase === "play" && lifted && !choice) prompt(fmt("tap_again"));
    if (v.phase === "play" && choice) {
      prompt(fmt("with_marriage"));
      p.appendChild(button(fmt("marriage", { value: choice.value }), { kind: "declare", card: choice.card }));
      if (choice.play) p.appendChild(button(fmt("plain_lead"), { kind: "play", card: choice.card }, "alt"));
    }
    if (k.redeal) p.appendChild(button(fmt("redeal"), { kind: "redeal" }, "alt"));
    if (k.keep) p.appendChild(button(fmt("keep"), { kind: "keep" }));
  }

  var SUIT_VALUE = { S: 40, C: 60, D: 80, H: 100 };

  function cardActions(code) {
    return V.legal.filter(function (a) { return a.card === code; });
  }

  function drawHand() {
    var v = V, box = $("hand");
    box.textContent = "";
    var backs = v.seat < 0; // a spectator: the bottom seat's cards face down
    box.classList.toggle("backs-only", backs);
    var n = backs ? v.seats[me()].cards : v.hand.length;
    if (!n) return;
    if (backs) {
      var w0 = box.clientWidth || 360;
      var cw0 = Math.min(72, Math.max(52, w0 / 5.6));
      document.documentElement.style.setProperty("--card-w", cw0 + "px");
      var st0 = n > 1 ? Math.min(cw0 * 0.5, (w0 - cw0) / (n - 1)) : 0;
      var l0 = (w0 - (cw0 + st0 * (n - 1))) / 2;
      for (var j = 0; j < n; j++) {
        var b = el("div", "card back");
        b.innerHTML = Cards.back();
        b.style.left = (l0 + j * st0) + "px";
        b.style.zIndex = String(j + 1);
        box.appendChild(b);
      }
      return;
    }
    var width = box.clientWidth || 360;
    var cw = Math.min(72, Math.max(52, width / 5.6));
    document.documentElement.style.setProperty("--card-w", cw + "px");
    var step = n > 1 ? Math.min(cw * 0.92, (width - cw) / (n - 1)) : 0;
    var left0 = (width - (cw + step * (n - 1))) / 2;
    var cardPhase = v.phase === "play" || v.phase === "passing";
    v.hand.forEach(function (code, i) {
      var acts = cardActions(code);
      var d = el("div", "card");
      d.innerHTML = Cards.face(code);
      d.style.left = (left0 + i * step) + "px";
      d.style.zIndex = String(i + 1);
      d.dataset.card = code;
      if (acts.length) d.classList.add("legal");
      else if (cardPhase && v.to_act === v.seat) d.classList.add("dim");
      if (lifted === code) d.classList.add("lifted");
      d.onclick = function () { tap(code, acts); };
      box.appendChild(d);
    });
  }

  function tap(code, acts) {
    if (!acts.length) { haptic("note", "warning"); return; }
    if (lifted !== code) {
      lifted = code;
      var declare = acts.filter(function (a) { return a.kind === "declare"; })[0];
      var play = acts.filter(function (a) { return a.kind === "play"; })[0];
      choice = declare ? { card: code, play: !!play,
        value: code.charAt(0) === "A" ? 200 : SUIT_VALUE[code.slice(-1)] } : null;
      haptic("select");
      render();
      return;
    }
    // the second tap plays it (declaring the marriage where there is one)
    var a = acts.filter(function (x) { return x.kind === "declare"; })[0] || acts[0];
    haptic("impact", "medium");
    lifted = null;
    choice = null;
    act(a);
  }

  // ------------------------------------------------------------------ sheet, summary

  function openSheet() {
    var v = V, body = $("sheet-body");
    body.textContent = "";
    if (v) {
      var table = el("table", "sheet");
      var head = el("tr");
      head.appendChild(el("th", "", "#"));
      v.seats.forEach(function (s) { head.appendChild(el("th", "", s.name)); });
      table.appendChild(head);
      v.sheet.forEach(function (row, i) {
        var tr = el("tr");
        tr.appendChild(el("td", "", String(i + 1)));
        row.forEach(function (x) { tr.appendChild(el("td", "", num(x))); });
        table.appendChild(tr);
      });
      var tot = el("tr", "total");
      tot.appendChild(el("td", "", fmt("total")));
      v.totals.forEach(function (x) { tot.appendChild(el("td", "", num(x))); });
      table.appendChild(tot);
      if (v.sheet_text) body.appendChild(el("pre", "paper", v.sheet_text));
      else body.appendChild(table);
    }
    showOverlay("sheet");
  }

  function showOverlay(id) {
    $(id).hidden = false;
    if (tg && tg.BackButton) tg.BackButton.show();
  }

  function closeOverlays() {
    $("sheet").hidden = true;
    $("summary").hidden = true;
    if (tg && tg.BackButton) tg.BackButton.hide();
  }

  window.addEventListener("resize", function () { if (V) drawHand(); });
  start();
})();
