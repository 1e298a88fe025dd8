package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The {@code java} that tests run the service jars with. The container images run JDK 25, where the
 * push service serves requests on virtual threads; the build targets 17 and runs tests on it. Tests
 * that start the jar as a process use the image's JDK generation when this machine has one.
 */
public final class ServiceJava {
  private static final Path JVMS = Path.of("/usr/lib/jvm");
  private static final Pattern FEATURE_VERSION =
      Pattern.compile("^JAVA_VERSION=\"(\\d+)", Pattern.MULTILINE);

  private ServiceJava() {}

  /**
   * The newest JDK 21 or later under /usr/lib/jvm or running the tests (an image such as
   * maven:3-eclipse-temurin-25 has its JDK elsewhere), if there is one.
   */
  public static Optional<Path> withVirtualThreads() {
    Path testsHome = Path.of(System.getProperty("java.home"));
    try (Stream<Path> installed = Files.isDirectory(JVMS) ? Files.list(JVMS) : Stream.empty()) {
      return Stream.concat(installed, Stream.of(testsHome))
          .filter(home -> Files.isExecutable(home.resolve("bin/java")))
          .filter(home -> featureVersion(home) >= 21)
          .max(Comparator.comparingInt(ServiceJava::featureVersion))
          .map(home -> home.resolve("bin/java"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A JDK 21+ where there is one, else the JDK running the tests. */
  public static Path forService() {
    return withVirtualThreads().orElseGet(ServiceJava::ofTests);
  }

  /** The java of the JDK running the tests. */
  public static Path ofTests() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  /** The feature version (17, 21, 25, ...) of the JDK whose {@code bin/java} this is; 0 unknown. */
  public static int featureVersionOf(Path java) {
    return featureVersion(java.getParent().getParent());
  }

  private static int featureVersion(Path home) {
    try {
      Matcher m = FEATURE_VERSION.matcher(Files.readString(home.resolve("release")));
      return m.find() ? Integer.parseInt(m.group(1)) : 0;
    } catch (IOException unreadable) {
      return 0;
    }
  }
}
