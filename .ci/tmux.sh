# shellcheck shell=bash
# Sourced by .ci/run: ensure_tmux installs tmux when it is missing (Debian's package, as
# root; like .ci/postgres.sh does for PostgreSQL) and exports THOUSAND_REQUIRE_TMUX=1, so the
# terminal game's test (tests/test_cli_tmux.py) fails instead of being skipped without it.

_tmux_log() { echo "[tmux] $*" >&2; }

ensure_tmux() {
    export THOUSAND_REQUIRE_TMUX=1
    if command -v tmux >/dev/null 2>&1; then
        _tmux_log "$(tmux -V) found"
        return 0
    fi
    if [ "$(id -u)" -ne 0 ]; then
        _tmux_log "no tmux found and not root: install the tmux package"
        return 1
    fi
    _tmux_log "installing Debian's tmux package"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tmux >/dev/null
    command -v tmux >/dev/null 2>&1 || { _tmux_log "tmux still missing after the install"; return 1; }
    _tmux_log "$(tmux -V) installed"
}
