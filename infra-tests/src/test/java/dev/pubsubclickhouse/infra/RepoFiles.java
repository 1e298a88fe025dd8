package dev.pubsubclickhouse.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Paths in the repository the deployment files live in. */
public final class RepoFiles {
  private RepoFiles() {}

  /**
   * The repository root: the {@code repo.root} system property (set by this module's surefire
   * configuration), else the nearest directory above the working directory that has terraform/.
   */
  public static Path root() {
    String configured = System.getProperty("repo.root");
    if (configured != null) {
      return Path.of(configured).toAbsolutePath().normalize();
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("terraform"))) {
        return dir;
      }
    }
    throw new IllegalStateException(
        "no terraform/ directory above " + Path.of("").toAbsolutePath());
  }

  public static Path path(String relative) {
    return root().resolve(relative);
  }

  public static String read(String relative) {
    try {
      return Files.readString(path(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
