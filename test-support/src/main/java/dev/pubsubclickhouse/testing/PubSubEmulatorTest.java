package dev.pubsubclickhouse.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class that runs against gcloud's Pub/Sub emulator; see {@link
 * PubSubEmulatorExtension}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(PubSubEmulatorExtension.class)
public @interface PubSubEmulatorTest {}
