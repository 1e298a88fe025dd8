package dev.pubsubclickhouse.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/** Marks a test class that talks to a real ClickHouse; see {@link ClickHouseExtension}. */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ClickHouseExtension.class)
public @interface ClickHouseTest {}
