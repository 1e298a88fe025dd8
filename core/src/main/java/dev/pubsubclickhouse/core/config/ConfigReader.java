package dev.pubsubclickhouse.core.config;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads typed parameter values from the environment and, where a parameter has a flag, from the
 * flags a command line parsed (a flag wins over the environment). Every error is one line naming
 * the parameter; a secret's value is never part of a message.
 */
public final class ConfigReader {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  private final Map<String, String> environment;
  private final Map<String, String> flags;
  private final boolean takesFlags;

  /** For a deployable configured by its environment alone: errors name the variables only. */
  public ConfigReader(Map<String, String> environment) {
    this(environment, Map.of(), false);
  }

  /** For a command line: errors name a parameter's flag beside its variable. */
  public ConfigReader(Map<String, String> environment, Map<String, String> flags) {
    this(environment, flags, true);
  }

  private ConfigReader(
      Map<String, String> environment, Map<String, String> flags, boolean takesFlags) {
    this.environment = Map.copyOf(environment);
    this.flags = Map.copyOf(flags);
    this.takesFlags = takesFlags;
  }

  /** An error about the parameter, named as whoever configures it sets it. */
  public ConfigurationException problem(Parameter parameter, String problem) {
    return new ConfigurationException(
        (takesFlags ? parameter.displayName() : parameter.env()) + ": " + problem);
  }

  /** The value as given, or empty when neither the flag nor the variable is set (or is blank). */
  public Optional<String> optional(Parameter parameter) {
    String value = parameter.flag() == null ? null : flags.get(parameter.flag());
    if (value == null) {
      value = environment.get(parameter.env());
    }
    if (value == null || value.isBlank()) {
      return Optional.ofNullable(parameter.defaultValue());
    }
    return Optional.of(value.trim());
  }

  public String required(Parameter parameter) {
    return optional(parameter).orElseThrow(() -> problem(parameter, "is required"));
  }

  public int integer(Parameter parameter, int min, int max) {
    return (int) longValue(parameter, min, max);
  }

  public long longValue(Parameter parameter, long min, long max) {
    String text = required(parameter);
    long value;
    try {
      value = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw problem(parameter, "expected a whole number, got " + shown(parameter, text));
    }
    if (value < min || value > max) {
      throw problem(parameter, "must be between " + min + " and " + max + ", got " + value);
    }
    return value;
  }

  public Optional<Integer> optionalInteger(Parameter parameter, int min, int max) {
    return optional(parameter).isPresent()
        ? Optional.of(integer(parameter, min, max))
        : Optional.empty();
  }

  public boolean bool(Parameter parameter) {
    String text = required(parameter);
    return switch (text.toLowerCase(java.util.Locale.ROOT)) {
      case "true", "1", "yes" -> true;
      case "false", "0", "no" -> false;
      default -> throw problem(parameter, "expected true or false, got " + shown(parameter, text));
    };
  }

  /** An http:// or https:// URL with a host. */
  public URI httpUrl(Parameter parameter) {
    String text = required(parameter);
    URI uri;
    try {
      uri = URI.create(text);
    } catch (IllegalArgumentException e) {
      throw problem(parameter, "not a URL: " + shown(parameter, text));
    }
    if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
        || uri.getHost() == null) {
      throw problem(parameter, "expected http(s)://host:port, got " + shown(parameter, text));
    }
    if (uri.getUserInfo() != null) {
      throw problem(parameter, "must not hold credentials; set the user and password parameters");
    }
    return uri;
  }

  /**
   * An https:// URL, or an http:// one to this machine: for an endpoint that is sent a credential
   * or sends what a credential is checked with (a Google access token, token signing keys), which
   * must not cross a network in clear. Loopback stays open for tests and emulators.
   */
  public URI secureUrl(Parameter parameter) {
    URI uri = httpUrl(parameter);
    if ("http".equals(uri.getScheme()) && !isLoopback(uri.getHost())) {
      throw problem(
          parameter,
          "must be https:// (http:// only to this machine: 127.0.0.0/8, ::1, localhost), got "
              + shown(parameter, required(parameter)));
    }
    return uri;
  }

  /**
   * True for a name or address of this machine as written: {@code localhost}, 127.0.0.0/8, {@code
   * ::1} (bracketed or not). No name is looked up: what a name resolves to can change.
   */
  public static boolean isLoopback(String host) {
    if (host == null) {
      return false;
    }
    String bare =
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    if (bare.equalsIgnoreCase("localhost")) {
      return true;
    }
    if (IPV4.matcher(bare).matches()) {
      return bare.startsWith("127.");
    }
    if (bare.contains(":")) {
      try {
        // A literal IPv6 address: parsed, not looked up.
        return InetAddress.getByName(bare).isLoopbackAddress();
      } catch (UnknownHostException e) {
        return false;
      }
    }
    return false;
  }

  /** {@code key=value,key=value}, in order. */
  public Map<String, String> keyValues(Parameter parameter) {
    Map<String, String> result = new LinkedHashMap<>();
    Optional<String> text = optional(parameter);
    if (text.isEmpty()) {
      return result;
    }
    for (String pair : text.get().split(",")) {
      if (pair.isBlank()) {
        continue;
      }
      int equals = pair.indexOf('=');
      if (equals <= 0) {
        throw problem(
            parameter, "expected key=value pairs separated by commas, got '" + pair.trim() + "'");
      }
      result.put(pair.substring(0, equals).trim(), pair.substring(equals + 1).trim());
    }
    return result;
  }

  private static String shown(Parameter parameter, String value) {
    // A URL with '@' may carry a password: never echo it.
    return parameter.secret() || value.contains("@")
        ? "(a value that is not shown)"
        : "'" + value + "'";
  }
}
