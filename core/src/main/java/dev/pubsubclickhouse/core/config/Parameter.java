package dev.pubsubclickhouse.core.config;

/**
 * One configuration parameter: its environment variable, the command-line flag that also sets it
 * (the Dataflow template's name, where there is one), its default and what it does. The --help text
 * and the README tables are made from these.
 *
 * @param env the environment variable, UPPER_SNAKE
 * @param flag the flag name without dashes, or null when there is none
 * @param defaultValue the value when unset, or null when there is none
 * @param secret true when the value must never be printed
 */
public record Parameter(
    String env, String flag, String defaultValue, String description, boolean secret) {

  public static Parameter of(String env, String defaultValue, String description) {
    return new Parameter(env, null, defaultValue, description, false);
  }

  public Parameter withFlag(String flagName) {
    return new Parameter(env, flagName, defaultValue, description, secret);
  }

  public Parameter withDefault(String value) {
    return new Parameter(env, flag, value, description, secret);
  }

  /** The same parameter described as one deployable uses it. */
  public Parameter withDescription(String text) {
    return new Parameter(env, flag, defaultValue, text, secret);
  }

  public Parameter asSecret() {
    return new Parameter(env, flag, defaultValue, description, true);
  }

  /** How errors name it: the flag and the variable when both exist. */
  public String displayName() {
    return flag == null ? env : "--" + flag + " (" + env + ")";
  }
}
