package dev.pubsubclickhouse.infra.hcl;

import dev.pubsubclickhouse.infra.hcl.Expr.Span;

/** {@code name = expression}, with where it is written. */
public record HclAttribute(String name, String file, int line, Span nameSpan, HclExpression value) {
  public String location() {
    return file + ":" + line;
  }
}
