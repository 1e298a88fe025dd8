package dev.pubsubclickhouse.function.envelope;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Which headers of an unwrapped push are message attributes. With {@code write_metadata} Pub/Sub
 * sends each attribute as a header of its own, beside the headers that carry the request, the
 * caller's credentials and what Google's front ends add. Only the first kind may become an
 * attribute: attributes are stored in the dead-letter table, published to the dead-letter topic and
 * republished by a replay, and a credential must reach none of them.
 *
 * <p>A message attribute that has one of these names cannot be told from the header and is dropped
 * too; docs/security.md lists the names (a test keeps that list whole).
 */
public final class RequestHeaders {
  private RequestHeaders() {}

  /** Headers that carry a credential, whoever set them. */
  public static final Set<String> CREDENTIALS =
      Set.of(
          // RFC 9110: Pub/Sub's own OIDC token, or any caller's.
          "authorization",
          "proxy-authorization",
          // RFC 6265.
          "cookie",
          // Cloud Run: the invoker's token when Authorization is the application's.
          "x-serverless-authorization",
          // API Gateway and Cloud Endpoints (ESPv2): the caller's Authorization when they send
          // their own, and the verified token's claims.
          "x-forwarded-authorization",
          "x-apigateway-api-userinfo",
          "x-endpoint-api-userinfo",
          // Identity-Aware Proxy: the signed assertion and the identity it vouches for.
          "x-goog-iap-jwt-assertion",
          "x-goog-authenticated-user-email",
          "x-goog-authenticated-user-id",
          // API keys (Google APIs, API Gateway, Cloud Endpoints).
          "x-goog-api-key",
          "x-api-key",
          // Authenticating proxies in front of a service that runs outside Cloud Run: oauth2-proxy
          // passes the user's tokens on, Envoy the client's certificate.
          "x-forwarded-access-token",
          "x-forwarded-id-token",
          "x-forwarded-client-cert");

  /**
   * Name prefixes of headers that authenticating proxies fill with a token or the identity it
   * vouches for: {@code x-auth-request-} (oauth2-proxy), {@code x-pomerium-} (Pomerium), {@code
   * cf-access-} (Cloudflare Access), {@code x-amzn-oidc-} (AWS load balancers), {@code
   * x-ms-client-principal} and {@code x-ms-token-} (Azure App Service).
   */
  public static final List<String> CREDENTIAL_PREFIXES =
      List.of(
          "x-auth-request-",
          "x-pomerium-",
          "cf-access-",
          "x-amzn-oidc-",
          "x-ms-client-principal",
          "x-ms-token-");

  /** Headers that Google's front ends add to a request on its way in. */
  public static final Set<String> ADDED_BY_FRONT_ENDS =
      Set.of(
          // Google Front End, Cloud Run, Cloud Load Balancing: tracing and the client's address.
          "x-cloud-trace-context",
          "traceparent",
          "tracestate",
          "x-forwarded-for",
          "x-forwarded-proto",
          "x-forwarded-host",
          "forwarded",
          "via",
          // Cloud Functions.
          "function-execution-id",
          // Cloud Endpoints (ESPv2, Envoy) and API Gateway.
          "x-request-id",
          "x-envoy-original-path",
          // Pub/Sub's push requests.
          "from");

  /**
   * Name prefixes of headers Google's front ends add: {@code x-goog-} (Identity-Aware Proxy, API
   * metadata; Pub/Sub's own {@code x-goog-pubsub-*} are read as metadata before this applies) and
   * {@code x-appengine-} (App Engine and Cloud Functions: the caller's address, country, city).
   */
  public static final List<String> ADDED_BY_FRONT_ENDS_PREFIXES =
      List.of("x-goog-", "x-appengine-");

  /** Headers of HTTP itself. */
  private static final Set<String> TRANSPORT =
      Set.of(
          "host",
          "content-type",
          "content-length",
          "content-encoding",
          "user-agent",
          "accept",
          "accept-encoding",
          "connection",
          "transfer-encoding",
          "expect",
          "te",
          "keep-alive",
          "upgrade");

  /** True when a header of this name may carry a message attribute. */
  public static boolean mayBeAttribute(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (CREDENTIALS.contains(lower)
        || ADDED_BY_FRONT_ENDS.contains(lower)
        || TRANSPORT.contains(lower)) {
      return false;
    }
    return Stream.concat(CREDENTIAL_PREFIXES.stream(), ADDED_BY_FRONT_ENDS_PREFIXES.stream())
        .noneMatch(lower::startsWith);
  }
}
