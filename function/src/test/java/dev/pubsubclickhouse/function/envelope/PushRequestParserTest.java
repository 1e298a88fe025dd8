package dev.pubsubclickhouse.function.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.messages.PubSubMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PushRequestParserTest {
  private final PushRequestParser parser = new PushRequestParser(false);

  private PubSubMessage parse(String body) throws NotAPushRequestException {
    return parser.parse(body.getBytes(StandardCharsets.UTF_8), Map.of());
  }

  @Test
  void readsTheWrappedEnvelope() throws Exception {
    PubSubMessage message =
        parse(
            "{\"message\":{\"data\":\"eyJhIjoxfQ==\",\"attributes\":{\"k\":\"v\"},\"messageId\":\"136969346945\","
                + "\"publishTime\":\"2021-02-26T19:13:55.749Z\",\"orderingKey\":\"o\"},"
                + "\"subscription\":\"projects/p/subscriptions/s\",\"deliveryAttempt\":3}");
    assertThat(new String(message.data(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
    assertThat(message.attributes()).containsExactly(Map.entry("k", "v"));
    assertThat(message.messageId()).isEqualTo("136969346945");
    assertThat(message.publishTime()).isEqualTo("2021-02-26T19:13:55.749Z");
    assertThat(message.orderingKey()).isEqualTo("o");
    assertThat(message.subscription()).isEqualTo("projects/p/subscriptions/s");
    assertThat(message.deliveryAttempt()).isEqualTo(3);
  }

  @Test
  void acceptsSnakeCaseDuplicatesAndIgnoresUnknownFields() throws Exception {
    PubSubMessage message =
        parse(
            "{\"extra\":[1,{\"x\":2}],\"message\":{\"data\":\"e30=\",\"message_id\":\"7\",\"messageId\":\"7\","
                + "\"publish_time\":\"2021-02-26T19:13:55Z\",\"unknown\":{\"deep\":true}}}");
    assertThat(message.messageId()).isEqualTo("7");
    assertThat(message.publishTime()).isEqualTo("2021-02-26T19:13:55Z");
    assertThat(message.deliveryAttempt()).isNull();
    assertThat(message.subscription()).isNull();
  }

  @Test
  void dataMayBeAbsentWhenThereAreAttributes() throws Exception {
    PubSubMessage message =
        parse("{\"message\":{\"attributes\":{\"only\":\"attributes\"},\"messageId\":\"1\"}}");
    assertThat(message.data()).isEmpty();
    assertThat(message.attributes()).containsEntry("only", "attributes");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "empty body||empty body: expected a Pub/Sub push request",
        "not JSON|hello|body is not a valid push request: Unrecognized token 'hello': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')",
        "an array|[1]|body is not a JSON object: expected a Pub/Sub push request",
        "no message|{\"subscription\":\"s\"}|no \"message\" object: not a Pub/Sub push request",
        "message not an object|{\"message\":\"x\"}|\"message\" is not an object",
        "invalid base64|{\"message\":{\"data\":\"%%%\"}}|message.data is not valid base64",
        "data not a string|{\"message\":{\"data\":5}}|message.data is not a base64 string",
        "nothing in the message|{\"message\":{\"messageId\":\"1\"}}|message has neither data nor attributes",
        "attribute not a string|{\"message\":{\"data\":\"e30=\",\"attributes\":{\"k\":1}}}|message.attributes.k is not a string",
        "trailing content|{\"message\":{\"data\":\"e30=\"}} {}|trailing content after the push request",
        "a field twice|{\"message\":{\"data\":\"e30=\",\"data\":\"W10=\"}}|body is not a valid push request: Duplicate field 'data'",
        "a lone surrogate in an attribute|{\"message\":{\"data\":\"e30=\",\"attributes\":{\"k\":\"\\ud800\"}}}|message.attributes.k has a lone UTF-16 surrogate \\ud800: not text",
        "a lone surrogate in an attribute's key|{\"message\":{\"data\":\"e30=\",\"attributes\":{\"\\udc00\":\"v\"}}}|a key of message.attributes has a lone UTF-16 surrogate \\udc00: not text",
        "a lone surrogate in the message id|{\"message\":{\"data\":\"e30=\",\"messageId\":\"B1\\ud800\"}}|messageId has a lone UTF-16 surrogate \\ud800: not text",
        "a surrogate pair the wrong way round|{\"message\":{\"data\":\"e30=\",\"orderingKey\":\"\\udc00\\ud800\"}}|orderingKey has a lone UTF-16 surrogate \\udc00: not text",
        "truncated|{\"message\":{\"data\":\"e30=\"|body is not a valid push request: Unexpected end-of-input: expected close marker for Object (start marker at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 12])",
      })
  void refusesWhatIsNotAPushRequest(String what, String body, String reason) {
    assertThatThrownBy(() -> parse(body == null ? "" : body))
        .isInstanceOf(NotAPushRequestException.class)
        .hasMessage(reason);
  }

  @Test
  void aSurrogatePairAsEscapesIsText() throws Exception {
    PubSubMessage message =
        parse("{\"message\":{\"data\":\"e30=\",\"attributes\":{\"k\":\"\\ud83d\\ude00\"}}}");
    assertThat(message.attributes()).containsEntry("k", "\uD83D\uDE00");
  }

  @Test
  void anOverlongOrSurrogateEncodingInTheBodyIsNotUtf8() {
    // C0 AF is an overlong "/": a lenient decoder reads it as "/" and stores it so.
    byte[] prefix =
        "{\"message\":{\"data\":\"e30=\",\"attributes\":{\"k\":\"".getBytes(StandardCharsets.UTF_8);
    byte[] body = java.util.Arrays.copyOf(prefix, prefix.length + 6);
    body[prefix.length] = (byte) 0xC0;
    body[prefix.length + 1] = (byte) 0xAF;
    System.arraycopy("\"}}}".getBytes(StandardCharsets.UTF_8), 0, body, prefix.length + 2, 4);
    assertThatThrownBy(() -> parser.parse(body, Map.of()))
        .isInstanceOf(NotAPushRequestException.class)
        .hasMessage("body is not UTF-8 at byte " + prefix.length);
  }

  @Test
  void nestingBeyondALimitIsRefusedNotAStackOverflow() {
    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    assertThatThrownBy(() -> parse("{\"message\":{\"data\":\"e30=\"},\"x\":" + deep + "}"))
        .isInstanceOf(NotAPushRequestException.class)
        .hasMessageStartingWith(
            "body is not a valid push request: Document nesting depth (65) exceeds the maximum allowed");
  }

  @Test
  void theUnwrappedFormIsRecognisedByItsMetadataHeaders() throws Exception {
    PubSubMessage message =
        parser.parse(
            "{\"a\":1}".getBytes(StandardCharsets.UTF_8),
            Map.of(
                "x-goog-pubsub-message-id", List.of("42"),
                "x-goog-pubsub-publish-time", List.of("2026-01-15T12:00:00Z"),
                "x-goog-pubsub-subscription-name", List.of("projects/p/subscriptions/raw"),
                "x-goog-pubsub-ordering-key", List.of("ok"),
                "content-type", List.of("application/json"),
                "authorization", List.of("Bearer secret"),
                "user-agent", List.of("APIs-Google"),
                "team", List.of("search")));
    assertThat(new String(message.data(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
    assertThat(message.messageId()).isEqualTo("42");
    assertThat(message.publishTime()).isEqualTo("2026-01-15T12:00:00Z");
    assertThat(message.subscription()).isEqualTo("projects/p/subscriptions/raw");
    assertThat(message.orderingKey()).isEqualTo("ok");
    assertThat(message.attributes()).containsExactly(Map.entry("team", "search"));
  }

  @Test
  void theEmulatorsOrderingKeyHeaderIsTheOrderingKeyNotAnAttribute() throws Exception {
    PubSubMessage message =
        parser.parse(
            "{\"a\":1}".getBytes(StandardCharsets.UTF_8),
            Map.of(
                "x-goog-pubsub-message-id", List.of("42"),
                "x-goog-ordering-key", List.of("device-7"),
                "team", List.of("search")));
    assertThat(message.orderingKey()).isEqualTo("device-7");
    assertThat(message.attributes()).containsExactly(Map.entry("team", "search"));
  }

  /**
   * Headers that carry a credential or that Google's front ends add, as a hostile review found them
   * stored in dead-letter rows, published to the dead-letter topic and republished by a replay.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "authorization",
        "proxy-authorization",
        "cookie",
        "x-serverless-authorization",
        "x-forwarded-authorization",
        "x-apigateway-api-userinfo",
        "x-endpoint-api-userinfo",
        "x-goog-iap-jwt-assertion",
        "x-goog-authenticated-user-email",
        "x-goog-authenticated-user-id",
        "x-goog-api-key",
        "x-api-key",
        "x-cloud-trace-context",
        "traceparent",
        "tracestate",
        "x-forwarded-for",
        "x-forwarded-proto",
        "x-forwarded-host",
        "forwarded",
        "via",
        "function-execution-id",
        "x-request-id",
        "x-envoy-original-path",
        "from",
        "x-goog-user-project",
        "x-appengine-user-ip",
        "x-appengine-country",
        "x-forwarded-access-token",
        "x-forwarded-id-token",
        "x-forwarded-client-cert",
        "x-auth-request-access-token",
        "x-auth-request-email",
        "x-pomerium-jwt-assertion",
        "cf-access-jwt-assertion",
        "x-amzn-oidc-accesstoken",
        "x-amzn-oidc-data",
        "x-ms-client-principal",
        "x-ms-token-aad-id-token"
      })
  void aCredentialOrFrontEndHeaderIsNoAttributeOfAnUnwrappedPush(String header) throws Exception {
    Map<String, List<String>> headers =
        Map.of(
            "x-goog-pubsub-message-id",
            List.of("42"),
            header,
            List.of("secret-of-" + header),
            "team",
            List.of("search"));
    byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    assertThat(parser.parse(body, headers).attributes())
        .containsExactly(Map.entry("team", "search"));
    assertThat(new PushRequestParser(true).parse(body, headers).attributes())
        .containsExactly(Map.entry("team", "search"));
    // Wrapped, the attributes are the envelope's: no header reaches them.
    byte[] wrapped =
        "{\"message\":{\"data\":\"e30=\",\"attributes\":{\"team\":\"search\"}}}"
            .getBytes(StandardCharsets.UTF_8);
    assertThat(parser.parse(wrapped, Map.of(header, List.of("secret-of-" + header))).attributes())
        .containsExactly(Map.entry("team", "search"));
  }

  @Test
  void withPushUnwrappedEveryBodyIsData() throws Exception {
    PubSubMessage message =
        new PushRequestParser(true)
            .parse("{\"message\":\"not an envelope\"}".getBytes(StandardCharsets.UTF_8), Map.of());
    assertThat(new String(message.data(), StandardCharsets.UTF_8))
        .isEqualTo("{\"message\":\"not an envelope\"}");
    assertThat(message.messageId()).isNull();
  }
}
