package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.function.envelope.RequestHeaders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** docs/security.md lists every header that never becomes an attribute, as the code has them. */
class SecurityDocumentTest {
  @Test
  void theDropListIsDocumentedWhole() throws Exception {
    String page = Files.readString(Path.of("../docs/security.md"));
    List<String> missing = new ArrayList<>();
    Stream.concat(RequestHeaders.CREDENTIALS.stream(), RequestHeaders.ADDED_BY_FRONT_ENDS.stream())
        .filter(name -> !page.contains("`" + name + "`"))
        .forEach(missing::add);
    Stream.concat(
            RequestHeaders.CREDENTIAL_PREFIXES.stream(),
            RequestHeaders.ADDED_BY_FRONT_ENDS_PREFIXES.stream())
        .filter(prefix -> !page.contains("`" + prefix + "*`"))
        .forEach(missing::add);
    assertThat(missing).isEmpty();
  }
}
