package dev.pubsubclickhouse.infra.hcl;

/** {@code name = expression}, with where it is written. */
public record HclAttribute(String name, String file, int line, HclExpression value) {
  public String location() {
    return file + ":" + line;
  }
}
