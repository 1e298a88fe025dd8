package dev.pubsubclickhouse.testing.values;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * The canonical form of a Map value: its entries in order, as a JSON object that may repeat a key
 * (two texts that read as the same key, such as "1" and "01" for an integer key, stay two entries,
 * as ClickHouse keeps them).
 */
record MapEntries(List<Map.Entry<String, JsonNode>> entries) {}
