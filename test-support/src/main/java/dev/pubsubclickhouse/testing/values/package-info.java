/**
 * The differential fuzz of values shared by the encoder's and the push service's tests: random
 * column types and JSON values, the README's type rules written out independently ({@link
 * dev.pubsubclickhouse.testing.values.ValueRules}), and a twin table into which ClickHouse's own
 * JSON parser writes the canonical forms, to compare stored values with.
 */
package dev.pubsubclickhouse.testing.values;
