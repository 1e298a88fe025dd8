package dev.pubsubclickhouse.function.auth;

import com.google.api.client.json.webtoken.JsonWebSignature;
import com.google.auth.oauth2.TokenVerifier;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Verifies the OIDC token Pub/Sub signs for each push request ({@code Authorization: Bearer JWT}):
 * signature against Google's published keys, issuer, audience, its times, and optionally the push
 * service account. A token must say when it expires and when it was issued, and live at most as
 * long as a Google ID token (1 hour): one without an expiry, or valid for years, would be a
 * credential that never goes stale if it leaked. Clocks differ, so {@link #CLOCK_SKEW} is allowed
 * on both ends: a token is admitted until that long after its expiry, and may say it was issued up
 * to that long in the future. Cloud Run's own IAM check usually does this before a request arrives;
 * this is for deployments that admit unauthenticated requests or run outside Cloud Run.
 *
 * <p>Pub/Sub reuses a token for many requests, so a verified token is remembered until it expires
 * (one signature check per token, not per request).
 */
public final class PushAuthenticator {
  /** The verdict on a request. */
  public enum Verdict {
    ADMITTED,
    /** No token, or one that is not valid: 401. */
    UNAUTHENTICATED,
    /** A valid token for someone else: 403. */
    FORBIDDEN
  }

  private static final int MAX_REMEMBERED_TOKENS = 1024;

  /** How far the signer's clock and ours may differ. */
  static final Duration CLOCK_SKEW = Duration.ofSeconds(60);

  /** The longest a token may live, from its issue to its expiry: a Google ID token's lifetime. */
  static final Duration MAX_LIFETIME = Duration.ofHours(1);

  private final TokenVerifier verifier;
  private final String serviceAccount;
  private final Map<String, Long> admittedUntilMillis = new ConcurrentHashMap<>();

  /**
   * @param serviceAccount the only email admitted, or null to admit any Google-signed token for the
   *     audience
   * @param certificatesUrl where the signing keys are published (a JWK set)
   */
  public PushAuthenticator(
      String audience, String issuer, String serviceAccount, String certificatesUrl) {
    this.verifier =
        TokenVerifier.newBuilder()
            .setAudience(audience)
            .setIssuer(issuer)
            .setCertificatesLocation(certificatesUrl)
            // The verifier allows no skew on the expiry: it is given a clock that far behind.
            .setClock(() -> System.currentTimeMillis() - CLOCK_SKEW.toMillis())
            .build();
    this.serviceAccount = serviceAccount;
  }

  public Verdict check(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Verdict.UNAUTHENTICATED;
    }
    String token = authorization.substring(7).trim();
    Long until = admittedUntilMillis.get(token);
    if (until != null && until > System.currentTimeMillis()) {
      return Verdict.ADMITTED;
    }
    JsonWebSignature verified;
    try {
      verified = verifier.verify(token);
    } catch (TokenVerifier.VerificationException | RuntimeException e) {
      return Verdict.UNAUTHENTICATED;
    }
    Long expires = verified.getPayload().getExpirationTimeSeconds();
    Long issued = verified.getPayload().getIssuedAtTimeSeconds();
    long nowSeconds = System.currentTimeMillis() / 1000;
    // Compared so that nothing overflows: a signed token may carry any 64-bit times.
    if (expires == null
        || issued == null
        || issued > nowSeconds + CLOCK_SKEW.toSeconds()
        || expires < issued
        || issued < nowSeconds - MAX_LIFETIME.toSeconds() - CLOCK_SKEW.toSeconds()
        || expires - issued > MAX_LIFETIME.toSeconds()) {
      return Verdict.UNAUTHENTICATED;
    }
    Object email = verified.getPayload().get("email");
    Object emailVerified = verified.getPayload().get("email_verified");
    if (serviceAccount != null
        && (!serviceAccount.equals(email) || !Boolean.TRUE.equals(emailVerified))) {
      return Verdict.FORBIDDEN;
    }
    if (admittedUntilMillis.size() >= MAX_REMEMBERED_TOKENS) {
      admittedUntilMillis.clear();
    }
    admittedUntilMillis.put(token, (expires + CLOCK_SKEW.toSeconds()) * 1000);
    return Verdict.ADMITTED;
  }
}
