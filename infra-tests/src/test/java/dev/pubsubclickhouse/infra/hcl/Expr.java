package dev.pubsubclickhouse.infra.hcl;

import java.util.List;

/**
 * An HCL expression as written (HCL native syntax), nothing evaluated. Every node knows where it
 * starts and ends in its file's text.
 */
public sealed interface Expr {
  /** Offsets of the node's first character and one past its last. */
  Span span();

  /** Where a node is written: offsets into the file's text. */
  record Span(int start, int end) {}

  /** The kinds of literal: a string (or a template's literal text), number, bool or null. */
  enum LiteralKind {
    STRING,
    NUMBER,
    BOOL,
    NULL
  }

  /** {@code 60}, {@code true}, {@code null}, or the literal text of a template. */
  record Literal(Span span, LiteralKind kind, String value) implements Expr {}

  /** A quoted string or heredoc: literal text parts and {@code ${...}} interpolations. */
  record Template(Span span, List<Expr> parts) implements Expr {}

  /** A root name such as {@code var}, {@code local}, {@code each} or a resource type. */
  record Name(Span span, String name) implements Expr {}

  /** One step after an expression: {@code .name}, {@code [key]}, {@code [*]} or {@code .*}. */
  sealed interface Step {}

  record GetAttr(String name) implements Step {}

  record Index(Expr key) implements Step {}

  record Splat() implements Step {}

  /** An expression followed by steps: {@code google_service_account.push.email}, {@code x[0]}. */
  record Traversal(Span span, Expr source, List<Step> steps) implements Expr {}

  record FunctionCall(Span span, String name, List<Expr> arguments) implements Expr {}

  record Tuple(Span span, List<Expr> items) implements Expr {}

  /** One {@code key = value} of an object; a bare identifier key is a string literal. */
  record ObjectItem(Expr key, Expr value) {}

  record ObjectCons(Span span, List<ObjectItem> items) implements Expr {}

  /**
   * {@code [for k, v in collection : value if condition]} (key null) or {@code {for k, v in
   * collection : key => value if condition}}.
   */
  record For(Span span, Iteration iteration, Expr key, Expr value, Expr condition)
      implements Expr {}

  /** The {@code for k, v in collection} of a for expression; {@code k} may be absent (null). */
  record Iteration(String keyVariable, String valueVariable, Expr collection) {}

  record Conditional(Span span, Expr condition, Expr whenTrue, Expr whenFalse) implements Expr {}

  record Binary(Span span, String operator, Expr left, Expr right) implements Expr {}

  record Unary(Span span, String operator, Expr operand) implements Expr {}
}
