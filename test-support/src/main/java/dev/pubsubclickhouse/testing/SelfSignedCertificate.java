package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A self-signed server certificate for 127.0.0.1 and localhost, made at test time with the JDK's
 * keytool: a PKCS12 key store for the server side and the certificate as PEM for the client to
 * trust. Nothing is checked in; each test run makes its own.
 */
public final class SelfSignedCertificate {
  private static final String ALIAS = "server";
  private static final char[] STORE_PASSWORD = "test-store-password".toCharArray();

  private final Path keyStore;
  private final Path certificatePem;

  private SelfSignedCertificate(Path keyStore, Path certificatePem) {
    this.keyStore = keyStore;
    this.certificatePem = certificatePem;
  }

  /** A new key pair and certificate in {@code directory}, valid for the host names given. */
  public static SelfSignedCertificate create(Path directory, String commonName, String san) {
    try {
      Files.createDirectories(directory);
      Path keyStore = directory.resolve(commonName + ".p12");
      Path pem = directory.resolve(commonName + ".pem");
      Files.deleteIfExists(keyStore);
      keytool(
          "-genkeypair",
          "-alias",
          ALIAS,
          "-keyalg",
          "EC",
          "-groupname",
          "secp256r1",
          "-dname",
          "CN=" + commonName,
          "-ext",
          "SAN=" + san,
          "-validity",
          "2",
          "-keystore",
          keyStore.toString(),
          "-storetype",
          "PKCS12",
          "-storepass",
          new String(STORE_PASSWORD),
          "-keypass",
          new String(STORE_PASSWORD));
      keytool(
          "-exportcert",
          "-rfc",
          "-alias",
          ALIAS,
          "-keystore",
          keyStore.toString(),
          "-storepass",
          new String(STORE_PASSWORD),
          "-file",
          pem.toString());
      return new SelfSignedCertificate(keyStore, pem);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** For 127.0.0.1 and localhost. */
  public static SelfSignedCertificate forLoopback(Path directory) {
    return create(directory, "localhost", "dns:localhost,ip:127.0.0.1");
  }

  /** The certificate, PEM-encoded: what a client is told to trust. */
  public Path certificatePem() {
    return certificatePem;
  }

  /** A server-side TLS context presenting this certificate. */
  public SSLContext serverContext() {
    try (InputStream in = Files.newInputStream(keyStore)) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, STORE_PASSWORD);
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, STORE_PASSWORD);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return context;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void keytool(String... arguments) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("keytool did not finish in 60 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    if (process.exitValue() != 0) {
      throw new IOException(
          "keytool failed: "
              + new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
  }
}
