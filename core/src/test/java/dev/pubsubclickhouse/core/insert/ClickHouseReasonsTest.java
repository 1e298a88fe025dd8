package dev.pubsubclickhouse.core.insert;

import static org.assertj.core.api.Assertions.assertThat;

import com.clickhouse.client.api.ServerException;
import java.security.cert.CertPathValidatorException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** A real ClickHouse's HTTP 404 carries an error code: it is ClickHouse, wording its own error. */
class ClickHouseReasonsTest {
  private static final String URL = "http://ch:8123";
  private static final String UNKNOWN_TABLE =
      "Code: 60. DB::Exception: Unknown table expression identifier 'nope.t'. (UNKNOWN_TABLE)";

  @Test
  void aCodedNotFoundFromTheInserterIsClickHousesOwnError() {
    String line =
        ClickHouseReasons.cannotUse(URL, new ClickHouseHttpException(60, 404, UNKNOWN_TABLE, -1));

    assertThat(line).isEqualTo("cannot use ClickHouse at " + URL + ": " + UNKNOWN_TABLE);
  }

  @Test
  void aCodedNotFoundFromTheClientIsClickHousesOwnError() {
    Exception wrapped =
        new RuntimeException(
            "Failed to get query response", new ServerException(60, UNKNOWN_TABLE, 404, "query-1"));

    String line = ClickHouseReasons.cannotUse(URL, wrapped);

    assertThat(line).doesNotContain("not ClickHouse").contains("(UNKNOWN_TABLE)");
  }

  @Test
  void anUncodedNotFoundIsSomeOtherServer() {
    String line =
        ClickHouseReasons.cannotUse(URL, new ClickHouseHttpException(-1, 404, "Not Found", -1));

    assertThat(line).contains("answered HTTP 404 without a ClickHouse error code");
  }

  @Test
  void anUntrustedCertificateSaysWhichCertificateToTrust() {
    SSLHandshakeException handshake =
        new SSLHandshakeException(
            "PKIX path building failed: unable to find valid certification path to requested"
                + " target");
    handshake.initCause(new CertPathValidatorException("unable to find valid certification path"));

    String line = ClickHouseReasons.cannotUse("https://ch:8443", new RuntimeException(handshake));

    assertThat(line)
        .isEqualTo(
            "cannot use ClickHouse at https://ch:8443: its TLS certificate is not trusted (no path"
                + " to a trusted CA, or not for this host name); set CLICKHOUSE_CA_CERT to the PEM of the CA that signed it"
                + " (or of the self-signed certificate), and check the host name in"
                + " CLICKHOUSE_URL");
  }

  @Test
  void aPlainPortIsNotCalledAnUntrustedCertificate() {
    String line =
        ClickHouseReasons.cannotUse(
            "https://ch:8123",
            new RuntimeException(
                new SSLHandshakeException("Unsupported or unrecognized SSL message")));

    assertThat(line).contains("it answers in plain HTTP, not TLS").doesNotContain("certificate");
  }
}
