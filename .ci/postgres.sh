# shellcheck shell=bash
# Sourced by .ci/run: start_postgres starts a throwaway PostgreSQL server for the tests and
# exports THOUSAND_TEST_PG_URL and THOUSAND_REQUIRE_PG=1 (so a PostgreSQL test that cannot
# reach it fails instead of being skipped); the server is stopped and its directory removed
# when the calling shell exits.
#
# The server is the distribution's (Debian's `postgresql` package, installed when no
# initdb is found and we are root), run as an unprivileged user (`postgres`, or a system
# user created for it) in a temporary directory: listening on 127.0.0.1 at a free port and
# on a socket in that directory, password-protected (a random one), fsync off (the data is
# thrown away).  With THOUSAND_TEST_PG_URL already set, that server is used instead.

_pg_log() { echo "[postgres] $*" >&2; }

_pg_initdb() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)
    [ -n "$found" ] && echo "$found"
    return 0
}

_pg_as() {  # run a command as the server's user
    if [ "$(id -u)" -eq 0 ]; then
        su -s /bin/bash "$_PG_USER" -c "$(printf '%q ' "$@")"
    else
        "$@"
    fi
}

_pg_stop() {
    if [ -n "${_PG_DIR:-}" ] && [ -d "$_PG_DIR" ]; then
        if [ -f "$_PG_DIR/data/postmaster.pid" ]; then
            _pg_as "$_PG_BIN/pg_ctl" -D "$_PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
        fi
        rm -rf "$_PG_DIR"
        _pg_log "stopped, $_PG_DIR removed"
    fi
}

start_postgres() {
    if [ -n "${THOUSAND_TEST_PG_URL:-}" ]; then
        _pg_log "using the server of THOUSAND_TEST_PG_URL"
        export THOUSAND_REQUIRE_PG=1
        return 0
    fi
    local initdb
    initdb=$(_pg_initdb)
    if [ -z "$initdb" ]; then
        if [ "$(id -u)" -ne 0 ]; then
            _pg_log "no PostgreSQL found (/usr/lib/postgresql/*/bin/initdb) and not root:" \
                "install the postgresql package or set THOUSAND_TEST_PG_URL"
            return 1
        fi
        _pg_log "installing Debian's postgresql package"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            postgresql >/dev/null
        initdb=$(_pg_initdb)
        [ -n "$initdb" ] || { _pg_log "initdb still missing after the install"; return 1; }
    fi
    _PG_BIN=$(dirname "$initdb")
    if [ "$(id -u)" -eq 0 ]; then
        _PG_USER=postgres
        if ! id "$_PG_USER" >/dev/null 2>&1; then
            _PG_USER=thousand-pg
            id "$_PG_USER" >/dev/null 2>&1 || useradd --system --no-create-home \
                --shell /usr/sbin/nologin "$_PG_USER"
        fi
    else
        _PG_USER=$(id -un)
    fi
    _PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/thousand-pg.XXXXXX")
    trap _pg_stop EXIT
    chmod 700 "$_PG_DIR"
    [ "$(id -u)" -ne 0 ] || chown "$_PG_USER" "$_PG_DIR"
    local port password
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    password=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
    (umask 077 && printf '%s\n' "$password" >"$_PG_DIR/pwfile")
    [ "$(id -u)" -ne 0 ] || chown "$_PG_USER" "$_PG_DIR/pwfile"
    _pg_as "$initdb" -D "$_PG_DIR/data" -U postgres --pwfile="$_PG_DIR/pwfile" \
        -A scram-sha-256 -E UTF8 --no-locale --no-sync >"$_PG_DIR/initdb.log" 2>&1 \
        || { cat "$_PG_DIR/initdb.log" >&2; return 1; }
    rm -f "$_PG_DIR/pwfile"
    _pg_as "$_PG_BIN/pg_ctl" -D "$_PG_DIR/data" -l "$_PG_DIR/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $_PG_DIR -c fsync=off -c max_connections=300" \
        start >/dev/null || { cat "$_PG_DIR/server.log" >&2; return 1; }
    _pg_as env PGPASSWORD="$password" "$_PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres thousand_ci
    export THOUSAND_TEST_PG_URL="postgresql://postgres:$password@127.0.0.1:$port/thousand_ci"
    export THOUSAND_REQUIRE_PG=1
    _pg_log "$("$_PG_BIN/postgres" --version) on 127.0.0.1:$port (socket and data in $_PG_DIR," \
        "user $_PG_USER)"
}
