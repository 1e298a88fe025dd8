package dev.pubsubclickhouse.messages.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.grpc.GrpcStatusCode;
import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.ApiExceptionFactory;
import com.google.pubsub.v1.Schema;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.messages.MessageEvents;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PayloadFormatsTest {
  private static final String NAME = "projects/p/schemas/s";
  private static final String PROTO = "syntax = \"proto3\";\nmessage M { string a = 1; }";

  private final List<String> fetched = new ArrayList<>();
  private final AtomicLong clock = new AtomicLong();

  private PayloadFormats formats(Schema.Type type, String definition) {
    return new PayloadFormats(
        resource -> {
          fetched.add(resource);
          return Schema.newBuilder().setType(type).setDefinition(definition).build();
        },
        clock::get);
  }

  private static Map<String, String> attributes(String revision, String encoding) {
    return revision == null
        ? Map.of("googclient_schemaname", NAME, "googclient_schemaencoding", encoding)
        : Map.of(
            "googclient_schemaname", NAME,
            "googclient_schemarevisionid", revision,
            "googclient_schemaencoding", encoding);
  }

  private static String rejection(PayloadFormat format, String data) {
    try {
      format.rows(data.getBytes(StandardCharsets.UTF_8));
    } catch (PayloadRejectedException e) {
      return e.getMessage();
    }
    throw new AssertionError("accepted " + data);
  }

  @Test
  void aMessageWithoutSchemaAttributesIsJson() throws Exception {
    assertThat(formats(Schema.Type.AVRO, "").of(Map.of("a", "b"))).isSameAs(PayloadFormat.JSON);
    assertThat(fetched).isEmpty();
  }

  @Test
  void aRevisionIsFetchedOnceAndTheNewestAgainAfterAMinute() throws Exception {
    PayloadFormats formats = formats(Schema.Type.PROTOCOL_BUFFER, PROTO);
    PayloadFormat first = formats.of(attributes("r1", "JSON"));
    assertThat(formats.of(attributes("r1", "JSON"))).isSameAs(first);
    formats.of(attributes(null, "JSON"));
    formats.of(attributes(null, "JSON"));
    clock.addAndGet(Duration.ofMinutes(1).toNanos());
    formats.of(attributes("r1", "JSON"));
    formats.of(attributes(null, "JSON"));
    assertThat(fetched).containsExactly(NAME + "@r1", NAME, NAME);
    assertThat(first.rows("{\"a\":\"x\"}".getBytes()).get(0).toString()).isEqualTo("{\"a\":\"x\"}");
  }

  @Test
  void aFetchThatFailsIsUnavailable() {
    PayloadFormats formats =
        new PayloadFormats(
            resource -> {
              throw new java.io.IOException("UNAVAILABLE: io exception");
            });
    assertThatThrownBy(() -> formats.of(attributes("r1", "BINARY")))
        .isInstanceOf(SchemaUnavailableException.class)
        .hasMessage("schema " + NAME + "@r1 could not be fetched: UNAVAILABLE: io exception");
  }

  private static ApiException grpcFailure(Status status) {
    return ApiExceptionFactory.createException(
        status.withDescription("the answer").asRuntimeException(),
        GrpcStatusCode.of(status.getCode()),
        false);
  }

  @Test
  void aSchemaPubSubDoesNotKnowRejectsItsMessagesAndIsAskedForAgainOnlyAfterAMinute()
      throws Exception {
    for (Status status : List.of(Status.NOT_FOUND, Status.INVALID_ARGUMENT)) {
      fetched.clear();
      PayloadFormats formats =
          new PayloadFormats(
              resource -> {
                fetched.add(resource);
                throw grpcFailure(status);
              },
              clock::get);
      PayloadFormat format = formats.of(attributes("r1", "BINARY"));
      assertThat(rejection(format, "{}"))
          .startsWith(
              "schema "
                  + NAME
                  + "@r1 is not in Pub/Sub's schema service ("
                  + status.getCode()
                  + "): ")
          .contains("the answer");
      assertThat(formats.of(attributes("r1", "BINARY"))).isSameAs(format);
      assertThat(fetched).as("kept for a while").containsExactly(NAME + "@r1");
      clock.addAndGet(PayloadFormats.NEWEST_REVISION_KEPT_FOR.toNanos());
      formats.of(attributes("r1", "BINARY"));
      assertThat(fetched).as("asked again").containsExactly(NAME + "@r1", NAME + "@r1");
    }
  }

  private static final Duration GRACE = Duration.ofMinutes(10);

  private PayloadFormats failing(List<Status> answers, int lookupsPerMinute) {
    return new PayloadFormats(
        resource -> {
          fetched.add(resource);
          Status status = answers.get(Math.min(fetched.size(), answers.size()) - 1);
          if (status.isOk()) {
            return Schema.newBuilder()
                .setType(Schema.Type.PROTOCOL_BUFFER)
                .setDefinition(PROTO)
                .build();
          }
          throw grpcFailure(status);
        },
        new SchemaLookups(GRACE, lookupsPerMinute),
        metrics,
        clock::get);
  }

  private final CountedLookups metrics = new CountedLookups();

  /** The schema lookups the formats report, as the service's metrics count them. */
  private static final class CountedLookups implements MessageEvents {
    final AtomicLong schemaLookups = new AtomicLong();
    final AtomicLong schemaLookupsRefused = new AtomicLong();

    @Override
    public void schemaLookedUp() {
      schemaLookups.incrementAndGet();
    }

    @Override
    public void schemaLookupRefused() {
      schemaLookupsRefused.incrementAndGet();
    }
  }

  /**
   * IAM grants take minutes to reach every server after a deploy: a young denial is answered 503
   * (Pub/Sub delivers again), one older than the grace dead-letters the message with the reason.
   * Between lookups the denial is kept, so the messages of a denied schema cost one lookup a
   * minute, not one each.
   */
  @Test
  void aSchemaTheServiceMayNotReadIsUnavailableWhileTheDenialIsYoungThenRejected()
      throws Exception {
    PayloadFormats formats = failing(List.of(Status.PERMISSION_DENIED), 1000);
    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> formats.of(attributes("r1", "BINARY")))
          .isInstanceOf(SchemaUnavailableException.class)
          .hasMessageStartingWith(
              "schema "
                  + NAME
                  + "@r1: the service may not read it (PERMISSION_DENIED) since 0 s; a denial"
                  + " younger than 600 s (SCHEMA_DENIED_GRACE_SECONDS) is answered 503: ")
          .hasMessageContaining("the answer");
    }
    assertThat(fetched).as("the denial kept between lookups").hasSize(1);
    clock.addAndGet(GRACE.minusSeconds(1).toNanos());
    assertThatThrownBy(() -> formats.of(attributes("r1", "BINARY")))
        .isInstanceOf(SchemaUnavailableException.class)
        .hasMessageContaining("since 599 s");
    assertThat(fetched).as("asked again a minute after the last lookup").hasSize(2);
    clock.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(rejection(formats.of(attributes("r1", "BINARY")), "{}"))
        .startsWith(
            "schema "
                + NAME
                + "@r1: the service may not read it (PERMISSION_DENIED) since 600 s, longer"
                + " than SCHEMA_DENIED_GRACE_SECONDS (600 s): ")
        .contains("the answer");
    assertThat(fetched).hasSize(2);
    assertThat(metrics.schemaLookups.get()).isEqualTo(2);
  }

  @Test
  void aSchemaReadAgainAfterADenialStartsTheGraceOver() throws Exception {
    PayloadFormats formats =
        failing(List.of(Status.PERMISSION_DENIED, Status.OK, Status.PERMISSION_DENIED), 1000);
    assertThatThrownBy(() -> formats.of(attributes(null, "JSON")))
        .isInstanceOf(SchemaUnavailableException.class);
    clock.addAndGet(Duration.ofMinutes(8).toNanos());
    assertThat(formats.of(attributes(null, "JSON")).rows("{\"a\":\"x\"}".getBytes()).get(0))
        .hasToString("{\"a\":\"x\"}");
    clock.addAndGet(Duration.ofMinutes(8).toNanos());
    assertThatThrownBy(() -> formats.of(attributes(null, "JSON")))
        .isInstanceOf(SchemaUnavailableException.class)
        .hasMessageContaining("since 0 s");
    assertThat(fetched).containsExactly(NAME, NAME, NAME);
  }

  /**
   * A publisher naming five new schemas a second (over the lookup budget) for twenty minutes: the
   * good messages of a schema read before are never answered 503, neither a revision's nor the
   * newest revision's, which is due to be looked up again every minute.
   */
  @Test
  void namesCycledByOnePublisherCostAKnownSchemasMessagesNothing() throws Exception {
    PayloadFormats formats =
        new PayloadFormats(
            resource -> {
              fetched.add(resource);
              if (resource.startsWith(NAME)) {
                return Schema.newBuilder()
                    .setType(Schema.Type.PROTOCOL_BUFFER)
                    .setDefinition(PROTO)
                    .build();
              }
              throw ApiExceptionFactory.createException(
                  Status.NOT_FOUND.asRuntimeException(),
                  GrpcStatusCode.of(Status.Code.NOT_FOUND),
                  false);
            },
            new SchemaLookups(GRACE, 60),
            MessageEvents.NONE,
            clock::get);
    Map<String, String> revision = attributes("r1", "JSON");
    Map<String, String> newest = attributes(null, "JSON");
    formats.of(revision);
    formats.of(newest);
    int answered503 = 0;
    for (int second = 0; second < 1200; second++) {
      clock.addAndGet(Duration.ofSeconds(1).toNanos());
      for (int i = 0; i < 5; i++) {
        try {
          formats.of(
              Map.of(
                  "googclient_schemaname",
                  "projects/p/schemas/made-up-" + second + "-" + i,
                  "googclient_schemaencoding",
                  "JSON"));
        } catch (SchemaUnavailableException over) {
          // the publisher's own messages: 503
        }
      }
      for (Map<String, String> good : List.of(revision, newest)) {
        try {
          formats.of(good);
        } catch (SchemaUnavailableException e) {
          answered503++;
        }
      }
    }
    assertThat(answered503).isZero();
  }

  /**
   * A publisher naming a new schema in every message cannot make the service look up more than
   * SCHEMA_LOOKUPS_PER_MINUTE a minute. A message over the budget is answered 503, not
   * dead-lettered: it may be a good message of a real schema, and Pub/Sub keeps it.
   */
  @Test
  void lookupsOverTheBudgetAreAnswered503AndCounted() throws Exception {
    PayloadFormats formats = failing(List.of(Status.NOT_FOUND), 3);
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Map<String, String> named =
          Map.of("googclient_schemaname", NAME + i, "googclient_schemaencoding", "JSON");
      try {
        answers.add(rejection(formats.of(named), "{}").substring(0, NAME.length() + 8));
      } catch (SchemaUnavailableException e) {
        answers.add(e.getMessage());
      }
    }
    String over =
        "schema lookups are over SCHEMA_LOOKUPS_PER_MINUTE (3 a minute); answered 503 so that"
            + " Pub/Sub delivers the message again";
    assertThat(answers)
        .containsExactly(
            "schema " + NAME + "0",
            "schema " + NAME + "1",
            "schema " + NAME + "2",
            "schema " + NAME + "3: " + over,
            "schema " + NAME + "4: " + over);
    assertThat(fetched).containsExactly(NAME + "0", NAME + "1", NAME + "2");
    clock.addAndGet(Duration.ofSeconds(20).toNanos());
    formats.of(Map.of("googclient_schemaname", NAME + "5", "googclient_schemaencoding", "JSON"));
    assertThat(fetched).as("one lookup back each 20 s").hasSize(4);
    assertThat(metrics.schemaLookups.get()).isEqualTo(4);
    assertThat(metrics.schemaLookupsRefused.get()).isEqualTo(2);
  }

  @Test
  void aSchemaThatCannotBeUsedRejectsEveryMessageWithTheReason() throws Exception {
    assertThat(
            rejection(
                formats(Schema.Type.AVRO, "{\"type\":\"string\"}").of(attributes("r", "JSON")),
                "\"x\""))
        .isEqualTo(
            "schema "
                + NAME
                + "@r cannot be used: the Avro schema is a STRING, not a record: rows"
                + " need named fields");
    assertThat(
            rejection(
                formats(Schema.Type.PROTOCOL_BUFFER, PROTO + "\nmessage N { int32 b = 1; }")
                    .of(attributes("r", "JSON")),
                "{}"))
        .isEqualTo(
            "schema "
                + NAME
                + "@r cannot be used: a Pub/Sub schema holds one top-level message"
                + " type; this one holds 2");
    assertThat(
            rejection(
                formats(
                        Schema.Type.PROTOCOL_BUFFER,
                        "syntax = \"proto3\";\nmessage M { strin a = 1; }")
                    .of(attributes("r", "JSON")),
                "{}"))
        .startsWith("schema " + NAME + "@r cannot be used: not a valid .proto: ");
    assertThat(rejection(formats(Schema.Type.AVRO, "{}").of(attributes("r", "TEXT")), "{}"))
        .isEqualTo("attribute googclient_schemaencoding is 'TEXT', not JSON or BINARY");
  }

  /**
   * Avro refuses these with AvroRuntimeExceptions that are not SchemaParseExceptions; the schema
   * will not read otherwise on the next delivery, so its messages are dead-lettered, not answered
   * 503 until Pub/Sub gives up on them.
   */
  @Test
  void anAvroSchemaAvroRefusesRejectsEveryMessageRatherThanBeingUnavailable() throws Exception {
    String invalidDefault =
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":["
            + "{\"name\":\"a\",\"type\":\"int\",\"default\":\"x\"}]}";
    assertThat(
            rejection(
                formats(Schema.Type.AVRO, invalidDefault).of(attributes("r", "BINARY")), "\u0002"))
        .isEqualTo(
            "schema "
                + NAME
                + "@r cannot be used: not an Avro schema: Invalid default for field a: \"x\" not"
                + " a \"int\"");
    String duplicateField =
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":["
            + "{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"a\",\"type\":\"int\"}]}";
    assertThat(
            rejection(
                formats(Schema.Type.AVRO, duplicateField).of(attributes("r", "BINARY")),
                "\u0002\u0002"))
        .startsWith("schema " + NAME + "@r cannot be used: not an Avro schema: Duplicate field a");
  }

  /** Two messages in one, or one and garbage: the decoders read the first and stop there. */
  @Test
  void jsonEncodedDataWithContentAfterTheMessageIsRejectedNotCutShort() throws Exception {
    PayloadFormat avro =
        formats(
                Schema.Type.AVRO,
                "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"string\"}]}")
            .of(attributes("r", "JSON"));
    PayloadFormat proto = formats(Schema.Type.PROTOCOL_BUFFER, PROTO).of(attributes("r", "JSON"));
    for (PayloadFormat format : List.of(avro, proto)) {
      assertThat(format.rows("{\"a\":\"x\"}\n".getBytes()).get(0).toString())
          .isEqualTo("{\"a\":\"x\"}");
      assertThat(rejection(format, "{\"a\":\"x\"} {\"a\":\"y\"}"))
          .endsWith(": content after the message");
      assertThat(rejection(format, "{\"a\":\"x\"}]")).endsWith(": content after the message");
    }
  }

  /**
   * A byte order mark before the message, which protobuf-java's JSON parser skips (RFC 8259 lets a
   * parser ignore it), is not content after the message.
   */
  @Test
  void protoJsonAfterAByteOrderMarkIsNotRejectedAsContentAfterTheMessage() throws Exception {
    PayloadFormat proto = formats(Schema.Type.PROTOCOL_BUFFER, PROTO).of(attributes("r", "JSON"));
    assertThat(proto.rows("\uFEFF{\"a\":\"x\"}".getBytes(StandardCharsets.UTF_8)).get(0).toString())
        .as("stored before the trailing-content check; now dead-lettered as content after it")
        .isEqualTo("{\"a\":\"x\"}");
  }

  @Test
  void protoFieldsWithoutPresenceAreAlwaysWrittenAndUnsetOnesWithPresenceAreLeftOut()
      throws Exception {
    PayloadFormat format =
        formats(
                Schema.Type.PROTOCOL_BUFFER,
                "syntax = \"proto3\";\nmessage M { int32 n = 1; optional int32 o = 2;"
                    + " repeated string r = 3; M2 m = 4; message M2 { bool b = 1; } }")
            .of(attributes("r", "JSON"));
    assertThat(format.rows("{}".getBytes()).get(0).toString()).isEqualTo("{\"n\":0,\"r\":[]}");
    assertThat(format.rows("{\"o\":0,\"m\":{}}".getBytes()).get(0).toString())
        .isEqualTo("{\"n\":0,\"o\":0,\"r\":[],\"m\":{\"b\":false}}");
  }
}
