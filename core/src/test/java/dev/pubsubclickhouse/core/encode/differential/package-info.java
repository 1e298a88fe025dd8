/**
 * The seeded differential fuzz of the encoder: random table schemas and JSON values, encoded by
 * RowEncoder and inserted, against ClickHouse's own JSON parsing of the same values into a twin
 * table, with the README's documented differences as named rules.
 */
package dev.pubsubclickhouse.core.encode.differential;
