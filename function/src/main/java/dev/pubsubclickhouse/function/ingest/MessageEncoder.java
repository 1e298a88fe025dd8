package dev.pubsubclickhouse.function.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import dev.pubsubclickhouse.core.errors.FailedRecord;
import dev.pubsubclickhouse.function.envelope.PayloadDecompressor;
import dev.pubsubclickhouse.function.envelope.PushMessage;
import dev.pubsubclickhouse.function.observability.Metrics;
import dev.pubsubclickhouse.function.sinks.FailedMessage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Turns a message into encoded rows: decompress, read the JSON rows, add the {@code _pubsub_*}
 * metadata columns the table has, encode. What cannot be read or does not fit becomes a failure for
 * the error sinks; the rest of the message still goes in.
 */
public final class MessageEncoder {
  public static final String MESSAGE_ID = "_pubsub_message_id";
  public static final String PUBLISH_TIME = "_pubsub_publish_time";
  public static final String ATTRIBUTES = "_pubsub_attributes";
  public static final String ORDERING_KEY = "_pubsub_ordering_key";
  public static final String SUBSCRIPTION = "_pubsub_subscription";
  public static final String DELIVERY_ATTEMPT = "_pubsub_delivery_attempt";
  public static final String ROW_INDEX = "_pubsub_row_index";
  public static final String INGESTED_AT = "_ingested_at";

  private final PayloadDecompressor decompressor;
  private final Metrics metrics;
  private final Clock clock;

  public MessageEncoder(PayloadDecompressor decompressor, Metrics metrics, Clock clock) {
    this.decompressor = decompressor;
    this.metrics = metrics;
    this.clock = clock;
  }

  public PendingMessage encode(PushMessage message, TargetTable.Snapshot table) {
    RowBinaryOutput out = new RowBinaryOutput(Math.max(64, message.data().length));
    List<FailedMessage> failures = new ArrayList<>(0);
    byte[] payload;
    List<JsonNode> rows;
    try {
      payload = decompressor.decompress(message.data());
      metrics.messagePayloadBytes.record(payload.length);
      rows = JsonPayloads.rows(payload);
    } catch (IOException | PayloadRejectedException e) {
      metrics.rowsParseFailed.increment();
      failures.add(failure(message, message.data(), e.getMessage(), -1));
      return pending(message, out, new int[] {0}, failures, table);
    }
    int[] rowStarts = new int[rows.size() + 1];
    int accepted = 0;
    String ingestedAt = clock.instant().toString();
    for (int i = 0; i < rows.size(); i++) {
      ObjectNode row = (ObjectNode) rows.get(i);
      addMetadata(row, i, message, table.columns(), ingestedAt);
      try {
        table.encoder().encode(row, out);
        rowStarts[++accepted] = out.size();
      } catch (RowRejectedException e) {
        metrics.rowsParseFailed.increment();
        failures.add(failure(message, payload, e.getMessage(), rows.size() > 1 ? i : -1));
      }
    }
    metrics.rowsParsedOk.add(accepted);
    return pending(message, out, java.util.Arrays.copyOf(rowStarts, accepted + 1), failures, table);
  }

  private static PendingMessage pending(
      PushMessage message,
      RowBinaryOutput out,
      int[] rowStarts,
      List<FailedMessage> failures,
      TargetTable.Snapshot table) {
    return new PendingMessage(
        message,
        out.toByteArray(),
        rowStarts,
        failures,
        table,
        System.nanoTime(),
        new CompletableFuture<>());
  }

  /** The error-table record of a message, or of row {@code row} of it (-1: the whole message). */
  FailedMessage failure(PushMessage message, byte[] payload, String reason, int row) {
    String error = row < 0 ? reason : "row " + row + ": " + reason;
    return new FailedMessage(
        message, new FailedRecord(rawMessage(payload), error, context(message), clock.instant()));
  }

  /** The payload as UTF-8 text, or as base64 when it is not valid UTF-8. */
  static String rawMessage(byte[] payload) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(payload))
          .toString();
    } catch (CharacterCodingException e) {
      return Base64.getEncoder().encodeToString(payload);
    }
  }

  /** Where the message came from, for the error table's stack_trace column. */
  static String context(PushMessage message) {
    return "messageId="
        + message.messageId()
        + " publishTime="
        + message.publishTime()
        + " subscription="
        + message.subscription()
        + " deliveryAttempt="
        + message.deliveryAttempt();
  }

  private static void addMetadata(
      ObjectNode row, int index, PushMessage message, Set<String> columns, String ingestedAt) {
    // An absent id or publish time (an unwrapped push without metadata) is left to the column's
    // DEFAULT: an empty id would make every such message the same one to a ReplacingMergeTree.
    putText(row, columns, MESSAGE_ID, message.messageId());
    putText(row, columns, PUBLISH_TIME, message.publishTime());
    putText(row, columns, ORDERING_KEY, orEmpty(message.orderingKey()));
    putText(row, columns, SUBSCRIPTION, orEmpty(message.subscription()));
    if (columns.contains(DELIVERY_ATTEMPT)) {
      // Pub/Sub sends it only when the subscription has a dead-letter policy: 0 means unknown.
      row.put(DELIVERY_ATTEMPT, message.deliveryAttempt() == null ? 0 : message.deliveryAttempt());
    }
    if (columns.contains(ROW_INDEX)) {
      // The row's place in its message, the same on every delivery: with the message id and the
      // subscription it keys a row, so that redelivered copies collapse (ReplacingMergeTree).
      row.put(ROW_INDEX, index);
    }
    if (columns.contains(ATTRIBUTES)) {
      ObjectNode attributes = JsonNodeFactory.instance.objectNode();
      for (Map.Entry<String, String> attribute : message.attributes().entrySet()) {
        attributes.put(attribute.getKey(), attribute.getValue());
      }
      row.set(ATTRIBUTES, attributes);
    }
    putText(row, columns, INGESTED_AT, ingestedAt);
  }

  private static String orEmpty(String value) {
    return value == null ? "" : value;
  }

  private static void putText(ObjectNode row, Set<String> columns, String column, String value) {
    if (value != null && columns.contains(column)) {
      row.put(column, value);
    }
  }
}
