package dev.pubsubclickhouse.infra;

import dev.pubsubclickhouse.infra.hcl.HclAttribute;
import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclFile;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The inputs and outputs tables of a module's README, made from its variables.tf and outputs.tf, as
 * terraform-docs would: name, type, default and description of each variable in file order, under
 * the section banners of variables.tf; name and description of each output.
 */
final class TerraformDocs {
  private TerraformDocs() {}

  static final String INPUTS_START = "<!-- terraform-inputs:start -->\n";
  static final String INPUTS_END = "<!-- terraform-inputs:end -->";
  static final String OUTPUTS_START = "<!-- terraform-outputs:start -->\n";
  static final String OUTPUTS_END = "<!-- terraform-outputs:end -->";

  /** {@code # ---\n# Title\n# ---}: a group of variables. */
  private static final Pattern BANNER = Pattern.compile("# -{20,}\\n# (.+)\\n# -{20,}\\n");

  static String inputs(TerraformConfig module) {
    StringBuilder text = new StringBuilder();
    String section = null;
    boolean header = false;
    for (HclFile file : module.files()) {
      TreeMap<Integer, String> banners = banners(file.source());
      for (HclBlock variable : file.blocks()) {
        if (!variable.type().equals("variable")) {
          continue;
        }
        Map.Entry<Integer, String> banner = banners.floorEntry(variable.typeSpan().start());
        String here = banner == null ? null : banner.getValue();
        if (here != null && !here.equals(section)) {
          text.append(text.length() == 0 ? "" : "\n").append("### ").append(here).append("\n\n");
          header = false;
        }
        section = here;
        if (!header) {
          text.append("| Name | Type | Default | Description |\n| --- | --- | --- | --- |\n");
          header = true;
        }
        text.append(row(variable));
      }
    }
    return text.toString();
  }

  static String outputs(TerraformConfig module) {
    StringBuilder text = new StringBuilder("| Name | Description |\n| --- | --- |\n");
    for (HclBlock output : module.outputs()) {
      text.append("| `")
          .append(output.label(0))
          .append("` | ")
          .append(cell(description(output)))
          .append(" |\n");
    }
    return text.toString();
  }

  /** {@code document} with the text between the markers replaced by {@code table}. */
  static String replaceBetween(String document, String start, String end, String table) {
    int from = document.indexOf(start);
    int to = document.indexOf(end);
    if (from < 0 || to < from) {
      throw new AssertionError("no " + start.strip() + " ... " + end + " in the README");
    }
    return document.substring(0, from + start.length()) + table + document.substring(to);
  }

  private static String row(HclBlock variable) {
    String type = variable.attribute("type").map(a -> oneLine(a.value().text())).orElse("any");
    String defaultValue =
        variable
            .attribute("default")
            .map(HclAttribute::value)
            .map(v -> "`" + oneLine(v.text()) + "`")
            .orElse("required");
    String description = description(variable);
    if (variable.attribute("sensitive").map(a -> a.value().text().equals("true")).orElse(false)) {
      description += " Sensitive.";
    }
    if (variable.attribute("ephemeral").map(a -> a.value().text().equals("true")).orElse(false)) {
      description += " Ephemeral.";
    }
    return "| `"
        + variable.label(0)
        + "` | `"
        + cell(type)
        + "` | "
        + cell(defaultValue)
        + " | "
        + cell(description)
        + " |\n";
  }

  private static String description(HclBlock block) {
    return block
        .attribute("description")
        .map(a -> String.join("", a.value().stringLiterals()))
        .orElse("");
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;");
  }

  private static String oneLine(String text) {
    return text.replaceAll("\\s*\\n\\s*", " ");
  }

  private static TreeMap<Integer, String> banners(String source) {
    TreeMap<Integer, String> found = new TreeMap<>();
    Matcher m = BANNER.matcher(source);
    while (m.find()) {
      found.put(m.start(), m.group(1).strip());
    }
    return found;
  }

  static List<String> sectionTitles(TerraformConfig module) {
    List<String> titles = new ArrayList<>();
    for (HclFile file : module.files()) {
      titles.addAll(banners(file.source()).values());
    }
    return titles;
  }
}
