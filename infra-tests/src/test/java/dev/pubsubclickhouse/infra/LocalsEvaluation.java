package dev.pubsubclickhouse.infra;

import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The module's locals, evaluated by {@code terraform console} in a root module of their own: the
 * module's variables.tf as it is, the locals asked for (and every local they use) as written, and
 * each resource or data source they read replaced by a variable holding a stand-in value. So a
 * local that Terraform cannot evaluate (a null in a template, a function refusing its arguments)
 * fails here rather than at plan time.
 */
final class LocalsEvaluation {
  private static final Pattern RESOURCE_REFERENCE =
      Pattern.compile("\\b(data\\.)?(google_[a-z0-9_]+)\\.([a-z0-9_]+)\\b");
  private static final Pattern LOCAL_REFERENCE = Pattern.compile("\\blocal\\.([a-z0-9_]+)");

  private final Path dir;
  private final Set<String> variables = new LinkedHashSet<>();
  private final Set<String> stubs = new LinkedHashSet<>();

  /**
   * Writes the root module into {@code dir}: {@code locals} (name to expression text) and the
   * module's locals they reach.
   */
  LocalsEvaluation(Path dir, TerraformConfig module, Map<String, String> extraLocals) {
    this.dir = dir;
    module.variables().forEach(v -> variables.add(v.label(0)));
    Map<String, String> locals = new LinkedHashMap<>();
    Deque<String> pending = new ArrayDeque<>();
    extraLocals.forEach(
        (name, text) -> {
          locals.put(name, text);
          pending.addAll(localsIn(text));
        });
    while (!pending.isEmpty()) {
      String name = pending.pop();
      if (locals.containsKey(name)) {
        continue;
      }
      String text = module.local(name).text();
      locals.put(name, text);
      pending.addAll(localsIn(text));
    }
    StringBuilder main = new StringBuilder("locals {\n");
    locals.forEach(
        (name, text) ->
            main.append("  ").append(name).append(" = ").append(stub(text)).append('\n'));
    main.append("}\n");
    for (String stub : stubs) {
      main.append("variable \"").append(stub).append("\" {\n  type = any\n}\n");
    }
    try {
      Files.writeString(dir.resolve("main.tf"), main.toString());
      Files.copy(module.dir().resolve("variables.tf"), dir.resolve("variables.tf"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Evaluates {@code expression} with {@code values} for the module's variables and for the
   * stand-ins (stub_google_TYPE_NAME, stub_data_google_TYPE_NAME); values for names this root
   * module does not declare are left out.
   */
  String evaluate(String expression, Map<String, String> values) {
    return LocalTools.console(dir, expression, declared(values));
  }

  /**
   * What {@code terraform console} says on stderr while it evaluates {@code expression}: the
   * variables' validation errors among others, which it prints without failing when the expression
   * reads a variable directly.
   */
  String diagnostics(String expression, Map<String, String> values) {
    List<String> command =
        new ArrayList<>(List.of(LocalTools.require("terraform"), "console", "-no-color"));
    declared(values).forEach((name, value) -> command.add("-var=" + name + "=" + value));
    return LocalTools.run(
            dir,
            expression + "\n",
            Map.of("TF_CLI_CONFIG_FILE", "/dev/null"),
            command.toArray(String[]::new))
        .err();
  }

  /** The values of {@code values} this root module declares; every stand-in must have one. */
  private Map<String, String> declared(Map<String, String> values) {
    Set<String> missing = new LinkedHashSet<>(stubs);
    missing.removeAll(values.keySet());
    if (!missing.isEmpty()) {
      throw new AssertionError("no stand-in value for " + missing);
    }
    Map<String, String> declared = new LinkedHashMap<>();
    values.forEach(
        (name, value) -> {
          if (variables.contains(name) || stubs.contains(name)) {
            declared.put(name, value);
          }
        });
    return declared;
  }

  private String stub(String text) {
    Matcher m = RESOURCE_REFERENCE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String name = "stub_" + (m.group(1) == null ? "" : "data_") + m.group(2) + "_" + m.group(3);
      stubs.add(name);
      m.appendReplacement(out, "var." + name);
    }
    m.appendTail(out);
    return out.toString();
  }

  private static Set<String> localsIn(String text) {
    Set<String> found = new LinkedHashSet<>();
    Matcher m = LOCAL_REFERENCE.matcher(text);
    while (m.find()) {
      found.add(m.group(1));
    }
    return found;
  }
}
