/**
 * JSON values to RowBinaryWithDefaults: one encoder per ClickHouse type, composed per table by
 * RowEncoder.
 */
package dev.pubsubclickhouse.core.encode;
