package dev.pubsubclickhouse.testing.values;

import com.fasterxml.jackson.databind.JsonNode;

/** What the documented rules say must become of one value. */
public sealed interface Expectation {
  /**
   * The value is stored, as ClickHouse stores {@code canonical}: the same value in a form
   * ClickHouse's JSON parser reads as the rules read the original (often the original itself).
   */
  record Store(JsonNode canonical) implements Expectation {}

  /** The value is refused: {@code rule} names the documented reason. */
  record Refuse(String rule) implements Expectation {}
}
