#!/usr/bin/env bash
# Installs Giftwell's two servers on a Debian machine, as docs/operations.md ("Installing") describes. Run as root
# from the built workspace (after `pnpm install --frozen-lockfile && pnpm build`). Every step may run again: what is
# there already is kept (an env file's secrets above all) and said so.
#
#   ops/install.sh system        the giftwell user, its folders, the env files (secrets made once), PostgreSQL's role
#                                and database, the units (enabled and started where systemd runs)
#   ops/install.sh code          this built tree as a new version under /srv/giftwell/releases, made current, the
#                                servers restarted (an upgrade is the same command from the newer tree)
#   ops/install.sh rollback      the version before made current again, the servers restarted
#
# ROOT=/some/folder installs under that folder instead of / (CI's rehearsal); systemctl is not called then.
# PSQL is how to reach PostgreSQL as a superuser (default: runuser -u postgres -- psql); PG_HOST and PG_PORT are
# where the servers reach it (default 127.0.0.1:5432).
set -euo pipefail

root=${ROOT:-}
here=$(cd "$(dirname "$0")/.." && pwd)
psql_command=${PSQL:-runuser -u postgres -- psql}
pg_host=${PG_HOST:-127.0.0.1}
pg_port=${PG_PORT:-5432}
user=giftwell
say() { printf '%-10s %s\n' "$1" "$2"; }

# The service user's numeric ids in the installed system's own passwd (under ROOT when there is one).
ids() { awk -F: -v name="$user" '$1 == name { print $3 ":" $4 }' "$root/etc/passwd"; }

system_user() {
  if [ -n "$(ids)" ]; then
    say kept "user $user ($(ids))"
  else
    useradd ${root:+--prefix "$root"} --system --user-group --home-dir /var/lib/giftwell --no-create-home \
      --shell /usr/sbin/nologin "$user"
    say made "user $user ($(ids))"
  fi
}

folders() {
  local owner
  owner=$(ids)
  install -d -m 0755 "$root/srv/giftwell" "$root/srv/giftwell/releases"
  install -d -m 0755 -o 0 -g 0 "$root/etc/giftwell"
  # The data folder: the user's alone (requests, addresses, the builds fetched from the CDN). The units' StateDirectory
  # makes it too; made here so that the commands can run before the first start.
  install -d -m 0700 -o "${owner%:*}" -g "${owner#*:}" "$root/var/lib/giftwell"
  say ready "/srv/giftwell/releases, /etc/giftwell (root), /var/lib/giftwell ($user, 0700)"
}

# A value of an env file, or empty.
setting() { sed -n "s/^$2=//p" "$1" | tail -n 1; }

env_files() {
  local site="$root/etc/giftwell/site.env" api="$root/etc/giftwell/api.env"
  if [ -f "$site" ] && [ -f "$api" ]; then
    say kept "$site and $api (their secrets unchanged)"
    return
  fi
  # One set of secrets for both servers: a form's outcome signed by one is read by the other.
  local cookie log preview password
  cookie=$(openssl rand -hex 32)
  log=$(openssl rand -hex 32)
  preview=$(openssl rand -hex 32)
  password=$(openssl rand -hex 24)
  for name in site api; do
    local file="$root/etc/giftwell/$name.env"
    [ -f "$file" ] && continue
    install -m 0600 -o 0 -g 0 "$here/ops/systemd/$name.env" "$file"
    sed -i -e "s|^COOKIE_SECRET=$|COOKIE_SECRET=$cookie|" -e "s|^LOG_HASH_SECRET=$|LOG_HASH_SECRET=$log|" \
      -e "s|^PREVIEW_SECRET=$|PREVIEW_SECRET=$preview|" \
      -e "s|^DATABASE_URL=.*|DATABASE_URL=postgres://$user:$password@$pg_host:$pg_port/giftwell|" "$file"
    say made "$file (0600, secrets made with openssl rand; set PUBLIC_SITE_URL and the CDN's addresses)"
  done
}

database() {
  local url password
  url=$(setting "$root/etc/giftwell/site.env" DATABASE_URL)
  password=$(sed -n 's|^postgres://[^:]*:\([^@]*\)@.*|\1|p' <<<"$url")
  # The role made once, its password the env files' (set again each run: the two never drift apart).
  $psql_command -v ON_ERROR_STOP=1 -q -X <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$user') THEN CREATE ROLE $user LOGIN; END IF;
END \$\$;
ALTER ROLE $user PASSWORD '$password';
SELECT 'CREATE DATABASE giftwell OWNER $user' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'giftwell')
\gexec
SQL
  say ready "PostgreSQL role $user and database giftwell (the servers migrate it when they first reach it)"
}

units() {
  install -d -m 0755 "$root/usr/local/bin" "$root/etc/systemd/system"
  install -m 0755 "$here/ops/giftwell" "$root/usr/local/bin/giftwell"
  say ready "$root/usr/local/bin/giftwell (the operators' commands: sudo giftwell requests list)"
  install -m 0644 "$here/ops/systemd/giftwell-site.service" "$here/ops/systemd/giftwell-api.service" \
    "$root/etc/systemd/system/"
  if [ -z "$root" ] && [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    systemctl enable --now giftwell-site
    say started "giftwell-site (systemctl status giftwell-site; giftwell-api only where an API runs on its own)"
  else
    say ready "$root/etc/systemd/system/giftwell-{site,api}.service (not started: no systemd here)"
  fi
}

restart() {
  if [ -z "$root" ] && [ -d /run/systemd/system ]; then
    for unit in giftwell-site giftwell-api; do
      if systemctl is-enabled --quiet "$unit" 2>/dev/null; then systemctl restart "$unit"; fi
    done
    say restarted "the enabled units"
  fi
}

# Makes /srv/giftwell/site point at releases/<version> in one rename: a restart finds one tree or the other, whole.
switch_to() {
  ln -sfn "releases/$1" "$root/srv/giftwell/site.next"
  mv -T "$root/srv/giftwell/site.next" "$root/srv/giftwell/site"
  say current "/srv/giftwell/site -> releases/$1"
}

code() {
  [ -d "$here/site-server/dist/cli" ] || {
    echo "This tree is not built: run pnpm install --frozen-lockfile && pnpm build first." >&2
    exit 1
  }
  local version
  version=$(date -u +%Y%m%d.%H%M%S.%3N)
  local target="$root/srv/giftwell/releases/$version"
  mkdir "$target"
  # node_modules hard-linked when LINK_MODULES=1 (a rehearsal on the same disk); copied otherwise.
  for entry in "$here"/* "$here"/.npmrc; do
    [ -e "$entry" ] || continue
    if [ "$(basename "$entry")" = node_modules ] && [ "${LINK_MODULES:-0}" = 1 ]; then
      cp -al "$entry" "$target/"
    else
      cp -a "$entry" "$target/"
    fi
  done
  chown -R 0:0 "$target"
  say copied "this tree to releases/$version"
  switch_to "$version"
  restart
}

rollback() {
  local current previous
  current=$(readlink "$root/srv/giftwell/site" | sed 's|^releases/||')
  previous=$(ls "$root/srv/giftwell/releases" | sort | awk -v current="$current" '$0 < current' | tail -n 1)
  if [ -z "$previous" ]; then
    echo "No version before $current in /srv/giftwell/releases." >&2
    exit 1
  fi
  switch_to "$previous"
  restart
}

case "${1:-}" in
  system)
    system_user
    folders
    env_files
    database
    units
    ;;
  code) code ;;
  rollback) rollback ;;
  *)
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 64
    ;;
esac
