package dev.pubsubclickhouse.infra.hcl;

import dev.pubsubclickhouse.infra.hcl.Expr.Binary;
import dev.pubsubclickhouse.infra.hcl.Expr.Conditional;
import dev.pubsubclickhouse.infra.hcl.Expr.For;
import dev.pubsubclickhouse.infra.hcl.Expr.FunctionCall;
import dev.pubsubclickhouse.infra.hcl.Expr.GetAttr;
import dev.pubsubclickhouse.infra.hcl.Expr.Index;
import dev.pubsubclickhouse.infra.hcl.Expr.Literal;
import dev.pubsubclickhouse.infra.hcl.Expr.LiteralKind;
import dev.pubsubclickhouse.infra.hcl.Expr.Name;
import dev.pubsubclickhouse.infra.hcl.Expr.ObjectCons;
import dev.pubsubclickhouse.infra.hcl.Expr.ObjectItem;
import dev.pubsubclickhouse.infra.hcl.Expr.Span;
import dev.pubsubclickhouse.infra.hcl.Expr.Splat;
import dev.pubsubclickhouse.infra.hcl.Expr.Step;
import dev.pubsubclickhouse.infra.hcl.Expr.Template;
import dev.pubsubclickhouse.infra.hcl.Expr.Traversal;
import dev.pubsubclickhouse.infra.hcl.Expr.Tuple;
import dev.pubsubclickhouse.infra.hcl.Expr.Unary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A reader of HCL's native syntax as Terraform files use it: bodies of attributes and blocks, and
 * expressions (literals, templates and heredocs, references, function calls, tuples, objects, for
 * expressions, conditionals and operators). It reads without evaluating, and refuses what it does
 * not know (template directives, a stray character) with the file and line, so a check built on it
 * never passes because something went unread.
 */
final class HclParser {
  private static final String[][] BINARY_OPERATORS = {
    {"||"}, {"&&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"+", "-"}, {"*", "/", "%"}
  };

  private final String file;
  private final String src;
  private final SourceText text;
  private int pos;

  /** Inside (), [] and ${}: newlines are white space there, elsewhere they end an attribute. */
  private int newlinesIgnored;

  private HclParser(String file, String src) {
    this.file = file;
    this.src = src;
    this.text = new SourceText(src);
  }

  /** The top-level body of {@code source}: blocks (.tf) or attributes (.tfvars). */
  static HclBlock.Body parse(String file, String source) {
    return new HclParser(file, source).body(true);
  }

  private int line(int offset) {
    return text.line(offset);
  }

  // --- Bodies ---------------------------------------------------------------------------------

  private HclBlock.Body body(boolean topLevel) {
    Map<String, HclAttribute> attributes = new LinkedHashMap<>();
    List<HclBlock> blocks = new ArrayList<>();
    while (true) {
      skipSpace(true);
      if (pos >= src.length()) {
        if (!topLevel) {
          throw error("a block is never closed");
        }
        return new HclBlock.Body(attributes, blocks);
      }
      if (peek() == '}') {
        if (topLevel) {
          throw error("'}' without a block to close");
        }
        return new HclBlock.Body(attributes, blocks);
      }
      int nameStart = pos;
      String name = identifier();
      Span nameSpan = new Span(nameStart, pos);
      skipSpace(false);
      if (peek() == '=' && peekAt(1) != '=') {
        pos++;
        Expr value = expression();
        endOfItem();
        HclAttribute attribute =
            new HclAttribute(name, file, line(nameStart), nameSpan, new HclExpression(value, text));
        if (attributes.put(name, attribute) != null) {
          throw error(nameStart, "attribute " + name + " set twice");
        }
      } else {
        blocks.add(block(name, nameSpan));
      }
    }
  }

  private HclBlock block(String type, Span typeSpan) {
    List<String> labels = new ArrayList<>();
    List<Span> labelSpans = new ArrayList<>();
    while (peek() != '{') {
      int start = pos;
      if (peek() == '"') {
        pos++;
        int textStart = pos;
        while (pos < src.length() && src.charAt(pos) != '"' && src.charAt(pos) != '\n') {
          if (src.charAt(pos) == '\\' || src.startsWith("${", pos)) {
            throw error("a block label must be a plain string");
          }
          pos++;
        }
        expect("\"");
        labels.add(src.substring(textStart, pos - 1));
      } else if (isIdentifierStart(peek())) {
        labels.add(identifier());
      } else {
        throw error("expected '=', a block label or '{' after " + type);
      }
      labelSpans.add(new Span(start, pos));
      skipSpace(false);
    }
    expect("{");
    int saved = newlinesIgnored;
    newlinesIgnored = 0;
    HclBlock.Body body = body(false);
    newlinesIgnored = saved;
    expect("}");
    endOfItem();
    return new HclBlock(file, line(typeSpan.start()), type, typeSpan, labels, labelSpans, body);
  }

  /** After an attribute or a block: a newline, the end of the file, or a closing brace. */
  private void endOfItem() {
    skipSpace(false);
    if (pos >= src.length() || peek() == '}') {
      return;
    }
    if (peek() != '\n') {
      throw error("expected a newline, found '" + peek() + "'");
    }
  }

  // --- Expressions ----------------------------------------------------------------------------

  private Expr expression() {
    int start = skipSpaceAndMark();
    Expr condition = binary(0);
    skipSpace(newlinesIgnored > 0);
    if (peek() == '?') {
      pos++;
      Expr whenTrue = expression();
      skipSpace(newlinesIgnored > 0);
      expect(":");
      Expr whenFalse = expression();
      return new Conditional(new Span(start, pos), condition, whenTrue, whenFalse);
    }
    return condition;
  }

  private Expr binary(int level) {
    if (level == BINARY_OPERATORS.length) {
      return unary();
    }
    int start = skipSpaceAndMark();
    Expr left = binary(level + 1);
    while (true) {
      skipSpace(newlinesIgnored > 0);
      String operator = binaryOperator(BINARY_OPERATORS[level]);
      if (operator == null) {
        return left;
      }
      pos += operator.length();
      Expr right = binary(level + 1);
      left = new Binary(new Span(start, pos), operator, left, right);
    }
  }

  private String binaryOperator(String[] candidates) {
    for (String operator : candidates) {
      if (!src.startsWith(operator, pos)) {
        continue;
      }
      // "<<" starts a heredoc, "=>" belongs to a for expression, "<=" and ">=" are their own.
      char next = peekAt(operator.length());
      if ((operator.equals("<") || operator.equals(">")) && (next == '=' || next == '<')) {
        continue;
      }
      return operator;
    }
    return null;
  }

  private Expr unary() {
    int start = skipSpaceAndMark();
    if (peek() == '-' || peek() == '!') {
      String operator = String.valueOf(src.charAt(pos++));
      Expr operand = unary();
      return new Unary(new Span(start, pos), operator, operand);
    }
    return postfix(start, term());
  }

  private Expr term() {
    int start = pos;
    char c = peek();
    if (c == '(') {
      pos++;
      newlinesIgnored++;
      Expr inner = expression();
      skipSpace(true);
      expect(")");
      newlinesIgnored--;
      return inner;
    }
    if (c == '"') {
      return quotedTemplate();
    }
    if (src.startsWith("<<", pos)) {
      return heredoc();
    }
    if (Character.isDigit(c)) {
      return number();
    }
    if (c == '[') {
      return tupleOrFor();
    }
    if (c == '{') {
      return objectOrFor();
    }
    if (isIdentifierStart(c)) {
      String name = identifier();
      if (src.startsWith("::", pos)) {
        throw error("provider-defined functions are not read here");
      }
      switch (name) {
        case "true", "false":
          return new Literal(new Span(start, pos), LiteralKind.BOOL, name);
        case "null":
          return new Literal(new Span(start, pos), LiteralKind.NULL, null);
        default:
          break;
      }
      if (peek() == '(') {
        return functionCall(start, name);
      }
      return new Name(new Span(start, pos), name);
    }
    throw error(pos >= src.length() ? "expected an expression" : "unexpected '" + c + "'");
  }

  private Expr postfix(int start, Expr source) {
    List<Step> steps = new ArrayList<>();
    while (true) {
      if (peek() == '.' && peekAt(1) == '*') {
        pos += 2;
        steps.add(new Splat());
      } else if (peek() == '.' && Character.isDigit(peekAt(1))) {
        pos++;
        steps.add(new Index(number()));
      } else if (peek() == '.' && isIdentifierStart(peekAt(1))) {
        pos++;
        steps.add(new GetAttr(identifier()));
      } else if (peek() == '[') {
        pos++;
        newlinesIgnored++;
        skipSpace(true);
        if (peek() == '*') {
          pos++;
          steps.add(new Splat());
        } else {
          steps.add(new Index(expression()));
        }
        skipSpace(true);
        expect("]");
        newlinesIgnored--;
      } else {
        break;
      }
    }
    return steps.isEmpty() ? source : new Traversal(new Span(start, pos), source, steps);
  }

  private Expr functionCall(int start, String name) {
    expect("(");
    newlinesIgnored++;
    List<Expr> arguments = new ArrayList<>();
    skipSpace(true);
    while (peek() != ')') {
      arguments.add(expression());
      skipSpace(true);
      if (src.startsWith("...", pos)) {
        pos += 3;
        skipSpace(true);
      }
      if (peek() == ',') {
        pos++;
        skipSpace(true);
      } else if (peek() != ')') {
        throw error("expected ',' or ')' in the arguments of " + name + "()");
      }
    }
    pos++;
    newlinesIgnored--;
    return new FunctionCall(new Span(start, pos), name, arguments);
  }

  private Expr tupleOrFor() {
    int start = pos;
    expect("[");
    newlinesIgnored++;
    skipSpace(true);
    Expr result;
    if (isKeyword("for")) {
      result = forExpression(start, false);
      expect("]");
    } else {
      List<Expr> items = new ArrayList<>();
      while (peek() != ']') {
        items.add(expression());
        skipSpace(true);
        if (peek() == ',') {
          pos++;
          skipSpace(true);
        } else if (peek() != ']') {
          throw error("expected ',' or ']' in a tuple");
        }
      }
      pos++;
      result = new Tuple(new Span(start, pos), items);
    }
    newlinesIgnored--;
    return result;
  }

  private Expr objectOrFor() {
    int start = pos;
    expect("{");
    skipSpace(true);
    if (isKeyword("for")) {
      newlinesIgnored++;
      Expr result = forExpression(start, true);
      expect("}");
      newlinesIgnored--;
      return result;
    }
    int saved = newlinesIgnored;
    newlinesIgnored = 0;
    List<ObjectItem> items = new ArrayList<>();
    while (peek() != '}') {
      Expr key = objectKey();
      skipSpace(false);
      if (peek() != '=' && peek() != ':') {
        throw error("expected '=' or ':' after an object key");
      }
      pos++;
      Expr value = expression();
      items.add(new ObjectItem(key, value));
      skipSpace(false);
      if (peek() == ',') {
        pos++;
      } else if (peek() != '\n' && peek() != '}') {
        throw error("expected ',', a newline or '}' after an object item");
      }
      skipSpace(true);
    }
    pos++;
    newlinesIgnored = saved;
    return new ObjectCons(new Span(start, pos), items);
  }

  /** A bare identifier key is the string it spells; anything else is an expression. */
  private Expr objectKey() {
    int start = pos;
    if (isIdentifierStart(peek())) {
      String name = identifier();
      int after = pos;
      skipSpace(false);
      if ((peek() == '=' && peekAt(1) != '=') || peek() == ':') {
        pos = after;
        return new Literal(new Span(start, after), LiteralKind.STRING, name);
      }
      pos = start;
    }
    return expression();
  }

  private Expr forExpression(int start, boolean object) {
    pos += 3;
    skipSpace(true);
    String first = identifier();
    String second = null;
    skipSpace(true);
    if (peek() == ',') {
      pos++;
      skipSpace(true);
      second = identifier();
      skipSpace(true);
    }
    if (!isKeyword("in")) {
      throw error("expected 'in' in a for expression");
    }
    pos += 2;
    Expr collection = expression();
    skipSpace(true);
    expect(":");
    Expr key = null;
    Expr value = expression();
    skipSpace(true);
    if (object) {
      expect("=>");
      key = value;
      value = expression();
      skipSpace(true);
      if (src.startsWith("...", pos)) {
        pos += 3;
        skipSpace(true);
      }
    }
    Expr condition = null;
    if (isKeyword("if")) {
      pos += 2;
      condition = expression();
      skipSpace(true);
    }
    String keyVariable = second == null ? null : first;
    String valueVariable = second == null ? first : second;
    return new For(
        new Span(start, pos + 1),
        new Expr.Iteration(keyVariable, valueVariable, collection),
        key,
        value,
        condition);
  }

  private Expr number() {
    int start = pos;
    while (Character.isDigit(peek())) {
      pos++;
    }
    if (peek() == '.' && Character.isDigit(peekAt(1))) {
      pos++;
      while (Character.isDigit(peek())) {
        pos++;
      }
    }
    if ((peek() == 'e' || peek() == 'E')
        && (Character.isDigit(peekAt(1))
            || ((peekAt(1) == '+' || peekAt(1) == '-') && Character.isDigit(peekAt(2))))) {
      pos += 2;
      while (Character.isDigit(peek())) {
        pos++;
      }
    }
    return new Literal(new Span(start, pos), LiteralKind.NUMBER, src.substring(start, pos));
  }

  // --- Templates ------------------------------------------------------------------------------

  private Expr quotedTemplate() {
    int start = pos;
    expect("\"");
    List<Expr> parts = templateParts(false, -1);
    expect("\"");
    return new Template(new Span(start, pos), parts);
  }

  /** {@code <<EOT} or {@code <<-EOT}, then lines up to one that holds only the marker. */
  private Expr heredoc() {
    int start = pos;
    pos += 2;
    if (peek() == '-') {
      pos++;
    }
    String marker = identifier();
    if (peek() != '\n') {
      throw error("expected a newline after the heredoc marker " + marker);
    }
    pos++;
    int contentStart = pos;
    int lineStart = pos;
    while (true) {
      if (lineStart >= src.length()) {
        throw error(start, "heredoc " + marker + " is never closed");
      }
      int lineEnd = src.indexOf('\n', lineStart);
      lineEnd = lineEnd < 0 ? src.length() : lineEnd;
      if (src.substring(lineStart, lineEnd).strip().equals(marker)) {
        pos = contentStart;
        List<Expr> parts = templateParts(true, lineStart);
        pos = lineEnd;
        return new Template(new Span(start, pos), parts);
      }
      lineStart = lineEnd + 1;
    }
  }

  /** Literal text and interpolations up to the closing quote, or up to {@code end} (heredoc). */
  private List<Expr> templateParts(boolean heredoc, int end) {
    List<Expr> parts = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    int textStart = pos;
    while (true) {
      if (heredoc ? pos >= end : pos >= src.length() || peek() == '"') {
        break;
      }
      char c = peek();
      if (!heredoc && c == '\n') {
        throw error("a quoted string does not end on its line");
      }
      if (src.startsWith("$${", pos) || src.startsWith("%%{", pos)) {
        text.append(c).append('{');
        pos += 3;
      } else if (src.startsWith("${", pos)) {
        flush(parts, text, textStart);
        pos += 2;
        if (peek() == '~') {
          pos++;
        }
        int saved = newlinesIgnored;
        newlinesIgnored = 1;
        parts.add(expression());
        skipSpace(true);
        if (peek() == '~') {
          pos++;
        }
        expect("}");
        newlinesIgnored = saved;
        textStart = pos;
      } else if (src.startsWith("%{", pos)) {
        throw error("template directives (%{...}) are not read here");
      } else if (!heredoc && c == '\\') {
        text.append(escape());
      } else {
        text.append(c);
        pos++;
      }
    }
    flush(parts, text, textStart);
    return parts;
  }

  private void flush(List<Expr> parts, StringBuilder text, int textStart) {
    if (text.length() > 0) {
      parts.add(new Literal(new Span(textStart, pos), LiteralKind.STRING, text.toString()));
      text.setLength(0);
    }
  }

  private String escape() {
    char c = peekAt(1);
    pos += 2;
    switch (c) {
      case 'n':
        return "\n";
      case 'r':
        return "\r";
      case 't':
        return "\t";
      case '"':
        return "\"";
      case '\\':
        return "\\";
      case 'u':
      case 'U':
        int digits = c == 'u' ? 4 : 8;
        String hex = src.substring(pos, Math.min(src.length(), pos + digits));
        if (!hex.matches("[0-9A-Fa-f]{" + digits + "}")) {
          throw error("bad \\" + c + " escape");
        }
        pos += digits;
        return new String(Character.toChars(Integer.parseInt(hex, 16)));
      default:
        throw error("unknown escape \\" + c);
    }
  }

  // --- Characters -----------------------------------------------------------------------------

  private String identifier() {
    if (!isIdentifierStart(peek())) {
      throw error(
          pos >= src.length() ? "expected a name" : "expected a name, found '" + peek() + "'");
    }
    int start = pos;
    while (pos < src.length() && isIdentifierPart(src.charAt(pos))) {
      pos++;
    }
    return src.substring(start, pos);
  }

  private boolean isKeyword(String word) {
    return src.startsWith(word, pos) && !isIdentifierPart(peekAt(word.length()));
  }

  private static boolean isIdentifierStart(char c) {
    return Character.isLetter(c) || c == '_';
  }

  private static boolean isIdentifierPart(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '-';
  }

  /** Skips spaces, tabs and comments, and newlines too when asked. */
  private void skipSpace(boolean newlines) {
    while (pos < src.length()) {
      char c = src.charAt(pos);
      if (c == ' ' || c == '\t' || c == '\r' || (newlines && c == '\n')) {
        pos++;
      } else if (c == '#' || src.startsWith("//", pos)) {
        while (pos < src.length() && src.charAt(pos) != '\n') {
          pos++;
        }
      } else if (src.startsWith("/*", pos)) {
        int close = src.indexOf("*/", pos + 2);
        if (close < 0) {
          throw error("a /* comment is never closed");
        }
        pos = close + 2;
      } else {
        return;
      }
    }
  }

  private int skipSpaceAndMark() {
    skipSpace(newlinesIgnored > 0);
    return pos;
  }

  private char peek() {
    return peekAt(0);
  }

  private char peekAt(int ahead) {
    return pos + ahead < src.length() ? src.charAt(pos + ahead) : '\0';
  }

  private void expect(String text) {
    if (!src.startsWith(text, pos)) {
      throw error(
          "expected '"
              + text
              + "'"
              + (pos < src.length() ? ", found '" + peek() + "'" : " before the end"));
    }
    pos += text.length();
  }

  private IllegalStateException error(String message) {
    return error(pos, message);
  }

  private IllegalStateException error(int offset, String message) {
    return new IllegalStateException(file + ":" + line(offset) + ": not valid HCL: " + message);
  }
}
