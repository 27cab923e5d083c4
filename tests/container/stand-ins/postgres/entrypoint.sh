#!/bin/sh
# Makes a cluster in an empty PGDATA with the role, password and database the variables name,
# as the official image does, then runs PostgreSQL as the postgres user on all addresses with
# password authentication for every connection over the network.
set -eu
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_postgres() { setpriv --reuid=postgres --regid=postgres --clear-groups "$@"; }

mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  chown postgres "$pwfile"
  as_postgres "$bin/initdb" --pgdata="$PGDATA" --username="$user" --pwfile="$pwfile" \
    --auth-local=trust --auth-host=scram-sha-256
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    as_postgres "$bin/pg_ctl" --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait start
    as_postgres "$bin/createdb" --username="$user" "$db"
    as_postgres "$bin/pg_ctl" --pgdata="$PGDATA" --mode=fast --wait stop
  fi
fi
exec setpriv --reuid=postgres --regid=postgres --clear-groups \
  "$bin/postgres" -D "$PGDATA" -c listen_addresses='*'
