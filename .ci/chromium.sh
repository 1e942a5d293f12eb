# shellcheck shell=bash
# Sourced by .ci/run: ensure_chromium installs Debian's `chromium` when /usr/bin/chromium is
# missing (as root; Playwright from PyPI drives it through its executable path, never
# `playwright install`) and exports CI=true, so the browser tests of tests/webapp/ fail
# instead of being skipped when the browser cannot start.

_cr_log() { echo "[chromium] $*" >&2; }

ensure_chromium() {
    export CI=true
    if [ -x /usr/bin/chromium ]; then
        return 0
    fi
    if [ "$(id -u)" -ne 0 ]; then
        _cr_log "no /usr/bin/chromium and not root: install Debian's chromium package"
        return 1
    fi
    _cr_log "installing Debian's chromium package"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        chromium fonts-dejavu-core fonts-noto-color-emoji >/dev/null
    [ -x /usr/bin/chromium ] || { _cr_log "chromium still missing after the install"; return 1; }
}
