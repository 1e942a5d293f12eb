// A stand-in for https://telegram.org/js/telegram-web-app.js in the browser tests: the
// same names the page uses, the init data signed by the test with the test bot's token,
// the theme's CSS variables as Telegram sets them, and a record of what the page asked.
(function () {
  var cfg = window.__TG_CONFIG__ || {};
  var theme = cfg.theme || {};
  var root = document.documentElement;
  Object.keys(theme).forEach(function (k) {
    root.style.setProperty("--tg-theme-" + k.replace(/_/g, "-"), theme[k]);
  });
  root.style.setProperty("--tg-viewport-stable-height", window.innerHeight + "px");
  var calls = (window.__tg_calls = []);
  var handlers = {};
  var back = null;
  function rec(name) { return function (x) { calls.push(x === undefined ? name : name + ":" + x); }; }
  window.Telegram = { WebApp: {
    initData: cfg.initData || "",
    initDataUnsafe: {},
    colorScheme: cfg.scheme || "light",
    themeParams: theme,
    version: "9.0",
    platform: "tdesktop",
    isClosingConfirmationEnabled: false,
    isVerticalSwipesEnabled: true,
    ready: rec("ready"),
    expand: rec("expand"),
    disableVerticalSwipes: function () { this.isVerticalSwipesEnabled = false; calls.push("disableVerticalSwipes"); },
    enableClosingConfirmation: function () { this.isClosingConfirmationEnabled = true; },
    disableClosingConfirmation: function () { this.isClosingConfirmationEnabled = false; },
    onEvent: function (name, fn) { (handlers[name] = handlers[name] || []).push(fn); },
    __fire: function (name) { (handlers[name] || []).forEach(function (fn) { fn(); }); },
    HapticFeedback: { impactOccurred: rec("impact"), notificationOccurred: rec("notification"),
                      selectionChanged: rec("selection") },
    BackButton: { isVisible: false, show: function () { this.isVisible = true; },
                  hide: function () { this.isVisible = false; },
                  onClick: function (fn) { back = fn; } },
    __back: function () { if (back) back(); },
  } };
})();
