# The tables job: sends each statement DDL_0 .. DDL_<DDL_COUNT - 1> to ClickHouse's HTTP interface
# (one statement a request) as CLICKHOUSE_USER with CLICKHOUSE_PASSWORD.
#
# The login travels as an Authorization: Basic header that curl reads on its standard input: base64
# carries every character of the password unchanged (a curl config file would unescape \ and end
# at "), and neither the password nor the header is ever on a command line.
set -eu
ca=""
if [ -n "${CLICKHOUSE_CA_CERT:-}" ] && [ -f "$CLICKHOUSE_CA_CERT" ]; then
  ca="--cacert $CLICKHOUSE_CA_CERT"
fi
credentials=$(printf '%s:%s' "$CLICKHOUSE_USER" "$CLICKHOUSE_PASSWORD" | base64 | tr -d '\n')
url="${CLICKHOUSE_URL%/}/"
i=0
while [ "$i" -lt "$DDL_COUNT" ]; do
  eval "statement=\$DDL_$i"
  status=0
  printf 'Authorization: Basic %s\n' "$credentials" |
    curl -sS --fail-with-body --retry 5 --retry-delay 3 --retry-all-errors --connect-timeout 10 \
      $ca -H @- --data-binary "$statement" "$url" || status=$?
  if [ "$status" -eq 22 ]; then
    echo "tables: ClickHouse refused statement $((i + 1)) of $DDL_COUNT (its answer is above)." >&2
    exit 1
  elif [ "$status" -ne 0 ]; then
    echo "tables: no answer from ClickHouse at $url (curl exit code $status)." \
      "ClickHouse Cloud admits only the addresses on its IP access list, and Cloud Run has no" \
      "fixed egress address: allow 0.0.0.0/0 there, or send the egress through a VPC with" \
      "Cloud NAT and a static address (vpc_egress; docs/deploy.md)." >&2
    exit 1
  fi
  i=$((i + 1))
done
echo "tables: $DDL_COUNT statements applied"
