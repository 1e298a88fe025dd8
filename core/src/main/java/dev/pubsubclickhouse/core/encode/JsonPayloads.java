package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a message payload into rows: one JSON object is one row, a JSON array of objects is
 * several. Numbers keep their exact decimal value; nesting depth and number length are bounded.
 */
public final class JsonPayloads {
  /** Deeper documents reject: no ClickHouse type nests this far, and deep trees cost stack. */
  public static final int MAX_NESTING_DEPTH = 200;

  private static final ObjectMapper MAPPER =
      JsonMapper.builder(
              com.fasterxml.jackson.core.JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNestingDepth(MAX_NESTING_DEPTH)
                          .maxNumberLength(1000)
                          .build())
                  .build())
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
          .build();

  private JsonPayloads() {}

  /** The mapper every JSON input shares, so numbers read the same everywhere. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * The rows of a payload.
   *
   * @throws PayloadRejectedException when it is not JSON, or not an object or array of objects
   */
  public static List<JsonNode> rows(byte[] payload) throws PayloadRejectedException {
    JsonNode root;
    try (JsonParser parser = MAPPER.createParser(payload)) {
      root = MAPPER.readTree(parser);
    } catch (StreamConstraintsException e) {
      throw new PayloadRejectedException(
          "payload exceeds a JSON limit: " + firstLine(e.getOriginalMessage()));
    } catch (JsonProcessingException e) {
      throw new PayloadRejectedException(
          "payload is not valid JSON: " + firstLine(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new PayloadRejectedException("payload is not readable: " + e.getMessage());
    } catch (NumberFormatException e) {
      // An exponent with more digits than BigDecimal takes (1e92987364836286162198047): Jackson
      // throws this unchecked while building the tree.
      throw new PayloadRejectedException(
          "payload has a number that cannot be read: " + firstLine(e.getMessage()));
    }
    if (root == null || root.isMissingNode()) {
      throw new PayloadRejectedException("payload is empty");
    }
    if (root.isObject()) {
      return List.of(root);
    }
    if (root.isArray()) {
      if (root.isEmpty()) {
        throw new PayloadRejectedException("payload is an empty JSON array: no rows");
      }
      List<JsonNode> rows = new ArrayList<>(root.size());
      for (int i = 0; i < root.size(); i++) {
        JsonNode row = root.get(i);
        if (!row.isObject()) {
          throw new PayloadRejectedException(
              "element "
                  + i
                  + " of the payload array is "
                  + NumericValues.kind(row)
                  + ", not an object");
        }
        rows.add(row);
      }
      return rows;
    }
    throw new PayloadRejectedException(
        "payload must be a JSON object or an array of objects, got " + NumericValues.kind(root));
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    String line = newline < 0 ? message : message.substring(0, newline);
    return line.length() > 200 ? line.substring(0, 200) + "..." : line;
  }
}
