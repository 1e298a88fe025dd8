package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.config.ParameterHelp;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The configuration table of docs/configuration.md is made from the parameters; this keeps it so.
 */
class ReadmeTest {
  @Test
  void theConfigurationPageListsEveryParameterAsTheCodeDefinesIt() throws Exception {
    String readme = Files.readString(Path.of("../docs/configuration.md"));
    String start = "<!-- push-parameters:start -->\n";
    String table =
        readme.substring(
            readme.indexOf(start) + start.length(), readme.indexOf("<!-- push-parameters:end -->"));
    assertThat(table).isEqualTo(ParameterHelp.environmentTable(PushParameters.ALL));
  }
}
