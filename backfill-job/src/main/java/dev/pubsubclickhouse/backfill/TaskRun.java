package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.backfill.progress.Progress;
import dev.pubsubclickhouse.backfill.source.Page;
import dev.pubsubclickhouse.backfill.source.ReadUnit;
import dev.pubsubclickhouse.backfill.source.RowRange;
import dev.pubsubclickhouse.backfill.write.EncodedPage;
import dev.pubsubclickhouse.backfill.write.PageEncoder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One task's share of the rows, as a three-stage pipeline: one reader thread per read unit (a row
 * range, or each of the task's read streams) fetches and parses the pages still to write ahead, an
 * encoder thread encodes them, and the calling thread hands each page to {@link PageCompletion}.
 * Bounded queues between the stages hold at most {@code prefetch} pages each, so reading, encoding
 * and writing overlap within a fixed amount of memory.
 */
final class TaskRun {
  /** A page of one read unit, as read and as encoded. */
  record UnitPage(ReadUnit unit, Page page) {}

  record EncodedUnitPage(ReadUnit unit, EncodedPage page) {}

  /** One reader is done: its unit was read to {@code end}. */
  private record UnitEnd(ReadUnit unit, long end) {}

  private static final Object END = new Object();

  private record Failure(Throwable cause) {}

  private final int prefetch;
  private final PageEncoder encoder;
  private final PageCompletion completion;
  private final Progress progress;

  TaskRun(int prefetch, PageEncoder encoder, PageCompletion completion, Progress progress) {
    this.prefetch = prefetch;
    this.encoder = encoder;
    this.completion = completion;
    this.progress = progress;
  }

  /**
   * Reads the parts of each unit still to write ({@code unwritten}, in order) and writes them;
   * throws the first failure of any stage.
   */
  void run(List<ReadUnit> units, Map<ReadUnit, List<RowRange>> unwritten) throws Exception {
    if (units.isEmpty()) {
      return;
    }
    BlockingQueue<Object> pages = new ArrayBlockingQueue<>(prefetch + units.size());
    BlockingQueue<Object> encoded = new ArrayBlockingQueue<>(prefetch);
    ExecutorService stages =
        Executors.newFixedThreadPool(
            units.size() + 1,
            task -> {
              Thread thread = new Thread(task, "backfill-stage");
              thread.setDaemon(true);
              return thread;
            });
    try {
      for (ReadUnit unit : units) {
        stages.submit(() -> read(unit, unwritten.get(unit), pages));
      }
      stages.submit(() -> encode(pages, units.size(), encoded));
      while (true) {
        Object item = encoded.take();
        if (item == END) {
          return;
        }
        if (item instanceof Failure failure) {
          throw rethrow(failure.cause());
        }
        if (item instanceof UnitEnd end) {
          completion.unitRead(end.unit(), end.end());
          continue;
        }
        EncodedUnitPage page = (EncodedUnitPage) item;
        completion.complete(page.unit(), page.page());
      }
    } finally {
      stages.shutdownNow();
    }
  }

  /** Runs a reader; its end or failure travels down the pipeline after its pages. */
  private void read(ReadUnit unit, List<RowRange> parts, BlockingQueue<Object> out) {
    try {
      long[] end = {parts.isEmpty() ? unit.range().end() : parts.get(0).start()};
      for (RowRange part : parts) {
        unit.read(
            part,
            page -> {
              progress.pageRead(page.rows().size());
              end[0] = page.endIndex();
              out.put(new UnitPage(unit, page));
            });
      }
      out.put(new UnitEnd(unit, end[0]));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable t) {
      try {
        out.put(new Failure(t));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Encodes pages until every reader has ended, or passes the first failure on. A reader's end
   * follows its pages, so it reaches the writer after them.
   */
  private void encode(BlockingQueue<Object> in, int readers, BlockingQueue<Object> out) {
    try {
      int ended = 0;
      while (ended < readers) {
        Object item = in.take();
        if (item instanceof UnitEnd) {
          ended++;
          out.put(item);
          continue;
        }
        if (item instanceof Failure) {
          out.put(item);
          return;
        }
        UnitPage page = (UnitPage) item;
        try {
          out.put(new EncodedUnitPage(page.unit(), encoder.encode(page.page())));
        } catch (RuntimeException e) {
          out.put(new Failure(e));
          return;
        }
      }
      out.put(END);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Exception rethrow(Throwable cause) {
    if (cause instanceof Exception e) {
      return e;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IllegalStateException(cause);
  }
}
