package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A record of more than {@value #MOST_POSITIONAL_COMPONENTS} components is built positionally only
 * in the file that declares it (its builder or named factories live there). Everywhere else a
 * reader sees the names: a builder's setters or named sub-records. The check reads every Java file
 * under a module's src/ with comments and literals blanked out.
 */
class WideRecordsTest {
  private static final int MOST_POSITIONAL_COMPONENTS = 6;
  private static final Pattern RECORD =
      Pattern.compile("\\brecord\\s+([A-Z]\\w*)\\s*(?:<[^(){};]*>)?\\s*\\(");
  private static final Pattern CONSTRUCTION =
      Pattern.compile("\\bnew\\s+(?:([\\w.]+)\\.)?([A-Z]\\w*)\\s*(?:<[^(){};]*>)?\\(");
  private static final Pattern PACKAGE =
      Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

  @Test
  void wideRecordsAreBuiltPositionallyOnlyInTheirOwnFile() throws IOException {
    Map<Path, String> sources = javaSources(RepoFiles.root());

    assertThat(sources).as("Java sources under */src/").hasSizeGreaterThan(100);
    assertThat(positionalConstructions(sources)).isEmpty();
  }

  @Test
  void theCheckCountsComponentsThroughGenericsAnnotationsAndArrays() {
    String declaration =
        "/** record Fake(int a, int b, int c, int d, int e, int f, int g) */\n"
            + "public record Wide<T extends Comparable<T>>(\n"
            + "    @Deprecated(since = \"1, 2\") Map<String, List<T>> a, byte[] b, int c,\n"
            + "    Optional<Integer> d, T e, String f, int... g) {\n"
            + "  record Narrow(int a, Map<String, String> b) {}\n"
            + "  record Empty() {}\n"
            + "  static Wide<String> of() { return new Wide<>(null, null, 0, null, null, \"\"); }\n"
            + "}\n";

    assertThat(records(blankCommentsAndLiterals(declaration)))
        .containsExactlyInAnyOrderEntriesOf(Map.of("Wide", 7, "Narrow", 2, "Empty", 0));
  }

  @Test
  void theCheckFindsAPositionalConstructionInAnotherFileButNotABuilder() {
    Map<Path, String> sources =
        Map.of(
            Path.of("c/src/main/java/other/Narrow.java"),
            "package other;\nclass Narrow {\n  record Wide(int a) {}\n}\n",
            Path.of("c/src/main/java/other/UseNarrow.java"),
            "package other;\nclass UseNarrow {\n  Object w = new Wide(1);\n}\n",
            Path.of("a/src/main/java/Wide.java"),
            "record Wide(int a, int b, int c, int d, int e, int f, int g) {\n"
                + "  static Wide zero() { return new Wide(0, 0, 0, 0, 0, 0, 0); }\n"
                + "  record Inner(int a, int b, int c, int d, int e, int f, int g) {}\n"
                + "}\n",
            Path.of("b/src/test/java/UseTest.java"),
            "class UseTest {\n"
                + "  // new Wide( in a comment is no construction\n"
                + "  String text = \"new Inner(\";\n"
                + "  Object w = new Wide (1, 2, 3, 4, 5, 6, 7);\n"
                + "  Object i = new Wide.Inner(1, 2, 3, 4, 5, 6, 7);\n"
                + "  Object b = Wide.builder().a(1).build();\n"
                + "}\n");

    assertThat(positionalConstructions(sources))
        .containsExactly(
            "b/src/test/java/UseTest.java builds Inner (7 components) positionally",
            "b/src/test/java/UseTest.java builds Wide (7 components) positionally");
  }

  /**
   * Each file outside a wide record's own file that calls {@code new Name(} of one. Records of one
   * simple name are told apart as javac would, roughly: the file's own type of that name first,
   * then the outer class a qualified call names, then one in the file's package or imports.
   */
  private static List<String> positionalConstructions(Map<Path, String> sources) {
    List<Declaration> declarations = new ArrayList<>();
    Map<Path, String> blanked = new TreeMap<>();
    sources.forEach((path, text) -> blanked.put(path, blankCommentsAndLiterals(text)));
    blanked.forEach(
        (path, code) ->
            records(code)
                .forEach(
                    (name, width) ->
                        declarations.add(new Declaration(name, width, path, packageOf(code)))));
    List<String> found = new ArrayList<>();
    blanked.forEach(
        (path, code) -> {
          Matcher construction = CONSTRUCTION.matcher(code);
          while (construction.find()) {
            String qualifier = construction.group(1);
            String name = construction.group(2);
            Declaration built = resolve(declarations, path, code, qualifier, name);
            if (built != null
                && built.width() > MOST_POSITIONAL_COMPONENTS
                && !built.file().equals(path)) {
              found.add(
                  path + " builds " + name + " (" + built.width() + " components) positionally");
            }
          }
        });
    return found.stream().distinct().sorted().toList();
  }

  /** The record a {@code new [qualifier.]name(} in {@code file} builds, or null if none is. */
  private static Declaration resolve(
      List<Declaration> declarations, Path file, String code, String qualifier, String name) {
    if (qualifier == null
        && Pattern.compile("\\b(class|record|enum|interface)\\s+" + name + "\\b")
            .matcher(code)
            .find()) {
      return declarations.stream()
          .filter(d -> d.name().equals(name) && d.file().equals(file))
          .findFirst()
          .orElse(null);
    }
    List<Declaration> candidates =
        declarations.stream()
            .filter(d -> d.name().equals(name))
            .filter(
                d ->
                    qualifier == null
                        || qualifier.equals(d.pkg())
                        || List.of(qualifier.split("\\.")).contains(d.outerClass()))
            .toList();
    List<Declaration> visible =
        candidates.stream()
            .filter(
                d ->
                    d.pkg().equals(packageOf(code))
                        || code.contains("import " + d.pkg() + "." + d.outerClass())
                        || code.contains("import " + d.pkg() + ".*"))
            .toList();
    // When the file's package and imports do not settle it, the widest is assumed: a doubt is
    // reported rather than let through.
    return (visible.isEmpty() ? candidates : visible)
        .stream().max(Comparator.comparingInt(Declaration::width)).orElse(null);
  }

  private static String packageOf(String code) {
    Matcher declaration = PACKAGE.matcher(code);
    return declaration.find() ? declaration.group(1) : "";
  }

  /** A record declared in {@code file}, a class of package {@code pkg}. */
  private record Declaration(String name, int width, Path file, String pkg) {
    String outerClass() {
      return file.getFileName().toString().replaceFirst("\\.java$", "");
    }
  }

  /** The records {@code code} declares, nested ones included, with their component counts. */
  static Map<String, Integer> records(String code) {
    Map<String, Integer> widths = new TreeMap<>();
    Matcher declaration = RECORD.matcher(code);
    while (declaration.find()) {
      widths.put(declaration.group(1), components(code, declaration.end()));
    }
    return widths;
  }

  /** How many components the header that opens before {@code start} lists. */
  private static int components(String code, int start) {
    int depth = 0;
    int commas = 0;
    boolean any = false;
    for (int i = start; i < code.length(); i++) {
      char c = code.charAt(i);
      if (c == '(' || c == '<' || c == '[' || c == '{') {
        depth++;
      } else if (c == '>' || c == ']' || c == '}') {
        depth--;
      } else if (c == ')') {
        if (depth == 0) {
          return any ? commas + 1 : 0;
        }
        depth--;
      } else if (c == ',' && depth == 0) {
        commas++;
      }
      any |= !Character.isWhitespace(c);
    }
    throw new IllegalArgumentException("a record header that never closes");
  }

  /**
   * {@code text} with every comment, string, text block and character literal replaced by spaces,
   * so that neither prose nor a string that mentions a record counts as code.
   */
  static String blankCommentsAndLiterals(String text) {
    StringBuilder code = new StringBuilder(text);
    int i = 0;
    while (i < text.length()) {
      int end;
      if (text.startsWith("//", i)) {
        end = text.indexOf('\n', i);
      } else if (text.startsWith("/*", i)) {
        end = text.indexOf("*/", i + 2) + 2;
      } else if (text.startsWith("\"\"\"", i)) {
        end = closing(text, i + 3, "\"\"\"");
      } else if (text.charAt(i) == '"') {
        end = closing(text, i + 1, "\"");
      } else if (text.charAt(i) == '\'') {
        end = closing(text, i + 1, "'");
      } else {
        i++;
        continue;
      }
      end = end <= i ? text.length() : end;
      for (int j = i; j < end; j++) {
        if (code.charAt(j) != '\n') {
          code.setCharAt(j, ' ');
        }
      }
      i = end;
    }
    return code.toString();
  }

  /** Just past the first unescaped {@code quote} at or after {@code from}. */
  private static int closing(String text, int from, String quote) {
    for (int i = from; i < text.length(); i++) {
      if (text.charAt(i) == '\\') {
        i++;
      } else if (text.startsWith(quote, i)) {
        return i + quote.length();
      }
    }
    return text.length();
  }

  /** Every .java file under {@code <module>/src/}, keyed by its path relative to the root. */
  private static Map<Path, String> javaSources(Path root) throws IOException {
    Map<Path, String> sources = new TreeMap<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path src : modules.map(m -> m.resolve("src")).filter(Files::isDirectory).toList()) {
        try (Stream<Path> files = Files.walk(src)) {
          files
              .filter(p -> p.toString().endsWith(".java"))
              .forEach(p -> sources.put(root.relativize(p), read(p)));
        }
      }
    }
    return sources;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
