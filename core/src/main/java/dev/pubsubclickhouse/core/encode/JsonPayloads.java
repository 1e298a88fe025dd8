package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NumericNode;
import com.fasterxml.jackson.databind.node.ValueNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a message payload into rows: one JSON object is one row, a JSON array of objects is
 * several. Numbers keep their exact decimal value, and their text as written where the value alone
 * would lose it: a zero's minus sign, {@code 1e3} ({@link NumberAsWrittenNode}). The payload must
 * be well-formed UTF-8 and hold no object with the same key twice; nesting depth, number length,
 * tokens and rows are bounded, so that a small payload cannot build a tree that fills the heap.
 */
public final class JsonPayloads {
  /** Deeper documents reject: no ClickHouse type nests this far, and deep trees cost stack. */
  public static final int MAX_NESTING_DEPTH = 200;

  /**
   * More rows in one payload reject. Each row becomes a tree and gets the metadata fields, about 1
   * KiB of heap for a small row, so 10 MB of {@code [{},{},...]} would need gigabytes.
   */
  public static final int MAX_ROWS = 10_000;

  /**
   * More JSON tokens (names, values, brackets) in one payload reject: it bounds the tree of one
   * object with very many fields the way {@link #MAX_ROWS} bounds an array (tens of bytes a token).
   */
  public static final long MAX_TOKENS = 1_000_000;

  /**
   * Heap of a parse beyond its payload, most per byte: the tree of {@code {"a":[{},{},...]}}
   * retains 28.5 bytes per byte of payload (measured, Jackson 2.20, compressed oops); {@code
   * [[],[],...]} 17.8, one-character strings 17.4, {@code 1.5} values 15.4, many short keys 8.3,
   * {@code 12} values 7.1.
   */
  private static final int TREE_BYTES_PER_BYTE = 32;

  /**
   * Heap of a parse beyond its payload per byte of long strings: the parse of one 8 MiB string
   * needed no more than 47 MiB beside its payload (the parser's buffers, the char array, the
   * string).
   */
  private static final int TEXT_BYTES_PER_BYTE = 6;

  /** The least {@link #heapBound} is per byte of payload. */
  public static final int LEAST_HEAP_PER_BYTE = TEXT_BYTES_PER_BYTE;

  /** Heap of a parse per token, most: 69 bytes for one-character strings, 61 for {@code 1.5}. */
  private static final int TREE_BYTES_PER_TOKEN = 72;

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

  /** Payloads have one more limit: the tokens. */
  private static final JsonFactory PAYLOADS =
      MAPPER
          .getFactory()
          .copy()
          .setStreamReadConstraints(
              MAPPER
                  .getFactory()
                  .streamReadConstraints()
                  .rebuild()
                  .maxTokenCount(MAX_TOKENS)
                  .build());

  /**
   * Reads a payload's object: a key seen twice in one object refuses (checked as the tree is built,
   * at no cost; the parser's own duplicate detection cost a fifth of the parse of a 20-field row).
   */
  private static final ObjectReader ROW =
      MAPPER.reader().with(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

  /** Reads one row where the parser stands, leaving what follows it (the array's next row). */
  private static final ObjectReader ONE_ROW =
      ROW.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private JsonPayloads() {}

  /** The mapper every JSON input shares, so numbers read the same everywhere. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * The most heap reading a payload of {@code payloadBytes} may take beside the payload itself:
   * {@link #TREE_BYTES_PER_BYTE} per byte for small ones; for large ones the token limit bounds the
   * tree, and what is left is long strings. Nesting is bounded, and its tree with it.
   */
  public static long heapBound(long payloadBytes) {
    return Math.min(
            payloadBytes * TREE_BYTES_PER_BYTE,
            payloadBytes * TEXT_BYTES_PER_BYTE + MAX_TOKENS * TREE_BYTES_PER_TOKEN)
        + 64 * 1024;
  }

  /**
   * The rows of a payload.
   *
   * @throws PayloadRejectedException when it is not JSON, or not an object or array of objects
   */
  public static List<JsonNode> rows(byte[] payload) throws PayloadRejectedException {
    int malformed = Utf8Bytes.firstMalformed(payload);
    if (malformed >= 0) {
      throw new PayloadRejectedException(
          String.format(
              "payload is not UTF-8: byte %d (0x%02X) does not begin a valid sequence",
              malformed, payload[malformed] & 0xFF));
    }
    try (JsonParser parser = PAYLOADS.createParser(payload)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new PayloadRejectedException("payload is empty");
      }
      NumbersAsWritten nodes = new NumbersAsWritten(parser);
      try {
        if (first == JsonToken.START_OBJECT) {
          return List.of(ROW.with(nodes).readTree(parser));
        }
        if (first == JsonToken.START_ARRAY) {
          return arrayRows(parser, ONE_ROW.with(nodes));
        }
      } finally {
        nodes.detach();
      }
      throw new PayloadRejectedException(
          "payload must be a JSON object or an array of objects, got "
              + NumericValues.kind(MAPPER.readTree(parser)));
    } catch (StreamConstraintsException e) {
      throw new PayloadRejectedException(
          "payload exceeds a JSON limit: " + firstLine(e.getOriginalMessage()));
    } catch (JsonProcessingException e) {
      throw new PayloadRejectedException("payload is not valid JSON: " + reason(e));
    } catch (IOException e) {
      throw new PayloadRejectedException("payload is not readable: " + e.getMessage());
    } catch (NumberFormatException e) {
      // An exponent with more digits than BigDecimal takes (1e92987364836286162198047): Jackson
      // throws this unchecked while building the tree.
      throw new PayloadRejectedException(
          "payload has a number that cannot be read: " + firstLine(e.getMessage()));
    }
  }

  /** The rows of an array, read one by one so that an array of too many stops at the limit. */
  private static List<JsonNode> arrayRows(JsonParser parser, ObjectReader oneRow)
      throws IOException, PayloadRejectedException {
    List<JsonNode> rows = new ArrayList<>();
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      if (rows.size() == MAX_ROWS) {
        throw new PayloadRejectedException(
            "payload has more than " + MAX_ROWS + " rows (JSON array elements)");
      }
      JsonNode row = oneRow.readTree(parser);
      if (!row.isObject()) {
        throw new PayloadRejectedException(
            "element "
                + rows.size()
                + " of the payload array is "
                + NumericValues.kind(row)
                + ", not an object");
      }
      rows.add(row);
    }
    if (parser.nextToken() != null) {
      throw new PayloadRejectedException(
          "payload is not valid JSON: trailing content after the array");
    }
    if (rows.isEmpty()) {
      throw new PayloadRejectedException("payload is an empty JSON array: no rows");
    }
    return rows;
  }

  /**
   * One JSON value from text, read as a payload's values are (the same limits but for the token
   * count, and a negative zero keeps its sign).
   */
  static JsonNode value(String text) throws IOException {
    try (JsonParser parser = MAPPER.createParser(text)) {
      NumbersAsWritten nodes = new NumbersAsWritten(parser);
      try {
        return MAPPER.reader().with(nodes).readTree(parser);
      } finally {
        nodes.detach();
      }
    }
  }

  /**
   * The nodes of one parse, where a number keeps what its text says beyond its value ({@link
   * NumberAsWrittenNode}): a zero's minus sign, a decimal's text where BigDecimal writes it
   * otherwise. The int or BigDecimal the parser hands over has lost both, so the factory looks at
   * the number's text: for an int only when it is zero.
   *
   * <p>The containers of the tree keep their factory, and a number put into a row later (the
   * service's _pubsub_row_index 0) is made by it too: the parse detaches the parser when it ends,
   * and such a number is plain. The parser, closed then and on no token, had no text to look at.
   */
  private static final class NumbersAsWritten extends JsonNodeFactory {
    private static final long serialVersionUID = 1L;

    private transient JsonParser parser;

    NumbersAsWritten(JsonParser parser) {
      super(true); // exact BigDecimals, as the mapper's factory
      this.parser = parser;
    }

    @Override
    public NumericNode numberNode(int value) {
      return value == 0 && parser != null && writtenWithMinusSign()
          ? NumberAsWrittenNode.NEGATIVE_INTEGER_ZERO
          : super.numberNode(value);
    }

    @Override
    public ValueNode numberNode(BigDecimal value) {
      if (parser == null) {
        return super.numberNode(value);
      }
      try {
        NumberAsWrittenNode written =
            NumberAsWrittenNode.decimalOrNull(
                value, parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
        return written != null ? written : super.numberNode(value);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Ends the parse: later numbers are made without a look at the parser. */
    void detach() {
      parser = null;
    }

    /**
     * True when the number the parser stands on is written with a minus sign. The factory makes a
     * number during the parse only when the parser stands on one.
     */
    private boolean writtenWithMinusSign() {
      try {
        return parser.getTextCharacters()[parser.getTextOffset()] == '-';
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The parser's reason, without what names Jackson's own classes and features. */
  private static String reason(JsonProcessingException e) {
    String reason = firstLine(e.getOriginalMessage());
    int internals = reason.indexOf(" for `ObjectNode`");
    return reason.startsWith("Duplicate field") && internals > 0
        ? reason.substring(0, internals)
        : reason;
  }

  /**
   * What a refusal quotes of a JSON parser's message: its first line (the rest shows the input
   * around the error), at most 200 characters of it; empty for none.
   */
  public static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    String line = newline < 0 ? message : message.substring(0, newline);
    return line.length() > 200 ? line.substring(0, 200) + "..." : line;
  }
}
