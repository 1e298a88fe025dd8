-- What the service's ClickHouse user (CLICKHOUSE_USER) may do, and no more: read the columns of
-- its two tables (the service reads the schema at start and on a schema error) and insert rows.
-- On the ClickHouse VM the startup script gives these to the user it creates (users.d, one
-- <query> each); elsewhere run each with "TO <user>" appended. No DDL, no other database, no
-- system table beyond what DESCRIBE needs.

GRANT SELECT, INSERT ON realtime.logs;

GRANT SELECT, INSERT ON realtime.logs_dead_letter;
