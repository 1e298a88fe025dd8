package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/** Writes one JSON value in the RowBinary form of one ClickHouse type, or rejects it. */
@FunctionalInterface
interface ValueEncoder {
  void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException;
}
