package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of README.md, CHANGELOG.md and every Markdown file under docs/ (docs/perf/
 * included) leads somewhere: a file or folder that exists, and a heading that exists where it names
 * one. The code paths of README and the reference pages ({@code function/.../X.java}, {@code
 * sql/logs.sql}) name files that exist. README stays short and links every reference page, which
 * holds the details.
 */
class DocumentationLinksTest {
  private static final int README_LINE_BUDGET = 300;
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
  private static final Pattern FENCED = Pattern.compile("(?ms)^```.*?^```");
  private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} +(.+?) *$");
  private static final Pattern CODE = Pattern.compile("`([^`\\s]+)`");

  private static List<Path> documents() throws IOException {
    List<Path> documents =
        new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md")));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    return documents;
  }

  @Test
  void everyRelativeLinkResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    for (Path document : documents()) {
      String text = FENCED.matcher(Files.readString(document)).replaceAll("");
      Matcher link = LINK.matcher(text);
      while (link.find()) {
        String target = link.group(1);
        if (target.matches("[a-z]+:.*")) {
          continue; // http(s):, mailto: — not a file of this repository
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? document : document.getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
          broken.add(ROOT.relativize(document) + ": " + target + " (no such file)");
        } else if (anchor != null && !anchors(resolved).contains(anchor)) {
          broken.add(ROOT.relativize(document) + ": " + target + " (no such heading)");
        }
      }
    }
    assertThat(broken).isEmpty();
  }

  @Test
  void theReadmeStaysWithinItsLineBudget() throws IOException {
    assertThat(Files.readAllLines(ROOT.resolve("README.md")))
        .hasSizeLessThanOrEqualTo(README_LINE_BUDGET);
  }

  @Test
  void theReadmeLinksEveryReferencePage() throws IOException {
    String readme = FENCED.matcher(Files.readString(ROOT.resolve("README.md"))).replaceAll("");
    Set<String> linked = new java.util.HashSet<>();
    Matcher link = LINK.matcher(readme);
    while (link.find()) {
      linked.add(link.group(1).replaceFirst("#.*", ""));
    }
    List<String> pages;
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      pages =
          docs.filter(p -> p.toString().endsWith(".md"))
              .map(p -> "docs/" + p.getFileName())
              .sorted()
              .collect(Collectors.toList());
    }
    assertThat(pages).isNotEmpty();
    assertThat(linked).containsAll(pages);
  }

  @Test
  void everyCodePathInTheReadmeAndTheReferencePagesExists() throws IOException {
    Set<String> topLevel;
    try (Stream<Path> entries = Files.list(ROOT)) {
      topLevel = entries.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
    }
    List<String> missing = new ArrayList<>();
    int checked = 0;
    for (Path document : documents()) {
      if (document.endsWith("CHANGELOG.md")) {
        continue; // names files as they were when each change was made
      }
      Matcher code = CODE.matcher(Files.readString(document));
      while (code.find()) {
        String path = code.group(1).replaceAll("[.,;:]$", "");
        int slash = path.indexOf('/');
        if (slash <= 0
            || !topLevel.contains(path.substring(0, slash))
            || path.contains("/target/")
            || path.startsWith("target/")
            || path.startsWith(".local/")
            || path.endsWith(".tfvars")
            || path.matches(".*[*$<>{}].*")) {
          continue; // not a path, or one made by a build, a local run (.local) or a user
        }
        checked++;
        if (!exists(path)) {
          missing.add(ROOT.relativize(document) + ": " + path);
        }
      }
    }
    assertThat(checked).as("paths checked").isGreaterThan(10);
    assertThat(missing).isEmpty();
  }

  /** {@code module/.../Name.java} names a file under module whose path ends so. */
  private static boolean exists(String path) throws IOException {
    int elided = path.indexOf("/.../");
    if (elided < 0) {
      return Files.exists(ROOT.resolve(path));
    }
    Path under = ROOT.resolve(path.substring(0, elided));
    String end = "/" + path.substring(elided + "/.../".length());
    try (Stream<Path> files = Files.walk(under)) {
      return files.anyMatch(p -> !p.toString().contains("/target/") && p.toString().endsWith(end));
    }
  }

  /** The anchors GitHub makes of a Markdown file's headings. */
  private static Set<String> anchors(Path document) {
    if (!document.toString().endsWith(".md")) {
      return Set.of();
    }
    try {
      String text = FENCED.matcher(Files.readString(document)).replaceAll("");
      Set<String> anchors = new java.util.HashSet<>();
      Matcher heading = HEADING.matcher(text);
      while (heading.find()) {
        String slug =
            heading
                .group(1)
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-');
        String unique = slug;
        for (int n = 1; !anchors.add(unique); n++) {
          unique = slug + "-" + n;
        }
      }
      return anchors;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
