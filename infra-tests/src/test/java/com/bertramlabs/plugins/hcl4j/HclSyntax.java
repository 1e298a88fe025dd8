package com.bertramlabs.plugins.hcl4j;

import com.bertramlabs.plugins.hcl4j.symbols.Symbol;
import java.io.IOException;
import java.io.StringReader;
import java.util.List;

/**
 * The syntax tree of an HCL text as hcl4j's lexer builds it, before {@link HCLParser} evaluates
 * anything.
 *
 * <p>{@code HCLParser.parse} runs Terraform functions and resolves references while it builds its
 * map, and fails on a configuration that uses {@code file()}, {@code templatefile()} or values only
 * Terraform knows. The lexer's tree keeps every block, attribute, reference and literal as written,
 * which is what these tests check. The lexer is package-private in hcl4j, hence this class in
 * hcl4j's package (test classpath only).
 */
public final class HclSyntax {
  private HclSyntax() {}

  /** Top-level symbols of {@code source}: blocks, or attributes in a .tfvars file. */
  public static List<Symbol> parse(String source) throws IOException, HCLParserException {
    HCLLexer lexer = new HCLLexer(new StringReader(source));
    lexer.yylex();
    return lexer.elementStack;
  }
}
