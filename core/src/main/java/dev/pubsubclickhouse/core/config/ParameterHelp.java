package dev.pubsubclickhouse.core.config;

import java.util.List;

/** The --help text and the README's parameter table, both made from the same parameters. */
public final class ParameterHelp {
  private ParameterHelp() {}

  public static String text(List<Parameter> parameters) {
    StringBuilder text = new StringBuilder("Parameters (environment variable, or --flag=value):\n");
    for (Parameter p : parameters) {
      text.append("  ").append(p.env());
      if (p.flag() != null) {
        text.append(", --").append(p.flag());
      }
      text.append('\n').append("      ").append(p.description());
      if (p.defaultValue() != null) {
        text.append(" Default: ").append(p.defaultValue()).append('.');
      }
      text.append('\n');
    }
    return text.toString();
  }

  /** The --help text of a program configured by its environment only: no flags are named. */
  public static String environmentText(List<Parameter> parameters) {
    StringBuilder text = new StringBuilder("Environment variables (the only configuration):\n");
    for (Parameter p : parameters) {
      text.append("  ").append(p.env()).append('\n');
      text.append("      ").append(p.description());
      if (p.defaultValue() != null) {
        text.append(" Default: ").append(p.defaultValue()).append('.');
      }
      text.append('\n');
    }
    return text.toString();
  }

  public static String markdownTable(List<Parameter> parameters) {
    StringBuilder table =
        new StringBuilder("| variable | flag | default | description |\n|---|---|---|---|\n");
    for (Parameter p : parameters) {
      table
          .append("| `")
          .append(p.env())
          .append("` | ")
          .append(p.flag() == null ? "" : "`--" + p.flag() + "`")
          .append(" | ")
          .append(p.defaultValue() == null ? "" : "`" + p.defaultValue() + "`")
          .append(" | ")
          .append(p.description().replace("|", "\\|"))
          .append(" |\n");
    }
    return table.toString();
  }

  /** The table without flags, for a program configured by its environment only. */
  public static String environmentTable(List<Parameter> parameters) {
    StringBuilder table =
        new StringBuilder("| variable | default | description |\n|---|---|---|\n");
    for (Parameter p : parameters) {
      table
          .append("| `")
          .append(p.env())
          .append("` | ")
          .append(p.defaultValue() == null ? "" : "`" + p.defaultValue() + "`")
          .append(" | ")
          .append(p.description().replace("|", "\\|"))
          .append(" |\n");
    }
    return table.toString();
  }
}
