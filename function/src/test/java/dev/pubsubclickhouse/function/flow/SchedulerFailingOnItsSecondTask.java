package dev.pubsubclickhouse.function.flow;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A one-thread scheduler whose second {@code schedule} throws OutOfMemoryError, as a JVM that can
 * no longer create the task would: what the table watch must survive or report.
 */
public final class SchedulerFailingOnItsSecondTask extends ScheduledThreadPoolExecutor {
  private final AtomicInteger scheduled = new AtomicInteger();

  public SchedulerFailingOnItsSecondTask() {
    super(1);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
    if (scheduled.incrementAndGet() == 2) {
      throw new OutOfMemoryError("unable to create a task");
    }
    return super.schedule(task, delay, unit);
  }
}
