package dev.pubsubclickhouse.core.insert;

import com.clickhouse.client.api.ServerException;
import dev.pubsubclickhouse.core.config.ClickHouseParameters;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.security.GeneralSecurityException;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * Why a program cannot use ClickHouse, as one line that says what to do. The push service, the
 * backfill and replay all word it here, so that a wrong password, a wrong port, {@code https://} to
 * a plain port or a URL of some other HTTP server reads the same in each of them.
 */
public final class ClickHouseReasons {
  /** AUTHENTICATION_FAILED, UNKNOWN_USER, REQUIRED_PASSWORD. */
  private static final Set<Integer> AUTHENTICATION_CODES = Set.of(516, 192, 194);

  /** client-v2's words for an answer without a ClickHouse error code. */
  private static final Pattern UNEXPECTED_STATUS =
      Pattern.compile("(?:transport error: |Unexpected result status )(\\d{3})");

  private static final String HTTP_PORT = "HTTP port (8123, or 8443 with https://)";

  private ClickHouseReasons() {}

  /**
   * One line: what failed, at which URL, and what to check. A reason that already names a table or
   * a column (the caller's own check) is returned as it is.
   */
  public static String cannotUse(Object url, Throwable failure) {
    String reason = ClickHouseFailures.describe(failure);
    if (reason.startsWith("table ")
        || reason.startsWith("dead-letter table ")
        || reason.startsWith("column ")) {
      return reason;
    }
    String where = "ClickHouse at " + url;
    if (plainHttpAnsweredTls(failure)) {
      return "cannot use "
          + where
          + ": it answers in plain HTTP, not TLS; use http:// in "
          + ClickHouseParameters.URL.env()
          + ", or the server's HTTPS port (8443 by default)";
    }
    if (untrustedCertificate(failure)) {
      return "cannot use "
          + where
          + ": its TLS certificate is not trusted (no path to a trusted CA, or not for this host"
          + " name); set "
          + ClickHouseParameters.CA_CERT.env()
          + " to the PEM of the CA that signed it (or of the self-signed certificate), and check"
          + " the host name in "
          + ClickHouseParameters.URL.env();
    }
    if (unreachable(failure)) {
      return where
          + " does not answer: "
          + unreachableReason(failure, reason)
          + "; check that it runs and that "
          + ClickHouseParameters.URL.env()
          + " names its "
          + HTTP_PORT;
    }
    int code = ClickHouseFailures.serverCodeAmongCauses(failure);
    if (AUTHENTICATION_CODES.contains(code) || reason.contains("Authentication failed")) {
      return "cannot use "
          + where
          + ": Authentication failed: wrong user or password (ClickHouse error "
          + code
          + "); check "
          + ClickHouseParameters.USER.env()
          + " and "
          + ClickHouseParameters.PASSWORD.env()
          + " (or "
          + ClickHouseParameters.PASSWORD_SECRET.env()
          + ")";
    }
    int status = statusWithoutClickHouseCode(failure);
    if (status >= 400 && status < 500 && status != 408 && status != 429) {
      return "cannot use "
          + where
          + ": it answered HTTP "
          + status
          + " without a ClickHouse error code: not ClickHouse, or a proxy in front of it refused;"
          + " check that "
          + ClickHouseParameters.URL.env()
          + " names ClickHouse's "
          + HTTP_PORT;
    }
    return "cannot use " + where + ": " + reason;
  }

  /** Nothing answered: no route, no listener, no such host, or no answer in time. */
  public static boolean unreachable(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConnectException
          || t instanceof UnknownHostException
          || t instanceof NoRouteToHostException
          || t instanceof InterruptedIOException) {
        return true;
      }
    }
    return false;
  }

  private static String unreachableReason(Throwable failure, String described) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof UnknownHostException) {
        return "unknown host " + t.getMessage();
      }
      if (t instanceof ConnectException && String.valueOf(t.getMessage()).endsWith("refused")) {
        return "connection refused";
      }
    }
    return described;
  }

  /**
   * A TLS handshake that got a plain HTTP answer: JSSE says "Unsupported or unrecognized SSL
   * message" (or, in older versions, "plaintext connection?").
   */
  private static boolean plainHttpAnsweredTls(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SSLException && t.getMessage() != null) {
        String message = t.getMessage();
        if (message.contains("Unsupported or unrecognized SSL message")
            || message.contains("plaintext connection")) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * A handshake that refused the server's certificate: no path to a trusted CA, or a host name it
   * does not name (JSSE puts a certificate or certification-path exception beneath).
   */
  private static boolean untrustedCertificate(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SSLHandshakeException) {
        for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
          if (c instanceof GeneralSecurityException) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * The HTTP status of an answer that carried no ClickHouse error code (ClickHouse's own errors
   * always do), or -1.
   */
  private static int statusWithoutClickHouseCode(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ClickHouseHttpException http) {
        return http.code() < 0 ? http.httpStatus() : -1;
      }
      if (t instanceof ServerException server) {
        return server.getCode() <= 0 ? server.getTransportProtocolCode() : -1;
      }
      if (t.getMessage() != null) {
        Matcher status = UNEXPECTED_STATUS.matcher(t.getMessage());
        if (status.find()) {
          return Integer.parseInt(status.group(1));
        }
      }
    }
    return -1;
  }
}
