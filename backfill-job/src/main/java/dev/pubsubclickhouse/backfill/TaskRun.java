package dev.pubsubclickhouse.backfill;

import com.google.cloud.bigquery.TableId;
import dev.pubsubclickhouse.backfill.progress.Progress;
import dev.pubsubclickhouse.backfill.source.Page;
import dev.pubsubclickhouse.backfill.source.PageReader;
import dev.pubsubclickhouse.backfill.source.RowRange;
import dev.pubsubclickhouse.backfill.source.SourceException;
import dev.pubsubclickhouse.backfill.write.EncodedPage;
import dev.pubsubclickhouse.backfill.write.PageEncoder;
import dev.pubsubclickhouse.backfill.write.PageWriter;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One task's share of the rows, as a three-stage pipeline: a reader thread fetches and parses pages
 * ahead, an encoder thread encodes them, and the calling thread inserts each page, keeps its
 * rejected rows and records it as done. Bounded queues between the stages hold at most {@code
 * prefetch} pages each, so reading, encoding and inserting overlap within a fixed amount of memory.
 */
final class TaskRun {
  /** Called for each written page, in order, on the calling thread. */
  interface PageDone {
    void done(EncodedPage page, PageWriter.Result result) throws Exception;
  }

  private static final Object END = new Object();

  private record Failure(Throwable cause) {}

  private final PageReader reader;
  private final TableId table;
  private final int pageRows;
  private final int prefetch;
  private final PageEncoder encoder;
  private final PageWriter writer;
  private final Progress progress;

  TaskRun(
      PageReader reader,
      TableId table,
      int pageRows,
      int prefetch,
      PageEncoder encoder,
      PageWriter writer,
      Progress progress) {
    this.reader = reader;
    this.table = table;
    this.pageRows = pageRows;
    this.prefetch = prefetch;
    this.encoder = encoder;
    this.writer = writer;
    this.progress = progress;
  }

  /** Reads [from, range.end()) and writes it; throws the first failure of any stage. */
  void run(RowRange range, long from, PageDone done) throws Exception {
    BlockingQueue<Object> pages = new ArrayBlockingQueue<>(prefetch);
    BlockingQueue<Object> encoded = new ArrayBlockingQueue<>(prefetch);
    ExecutorService stages =
        Executors.newFixedThreadPool(
            2,
            task -> {
              Thread thread = new Thread(task, "backfill-stage");
              thread.setDaemon(true);
              return thread;
            });
    try {
      stages.submit(() -> stage(pages, () -> read(range, from, pages)));
      stages.submit(() -> encode(pages, encoded));
      while (true) {
        Object item = encoded.take();
        if (item == END) {
          return;
        }
        if (item instanceof Failure failure) {
          throw rethrow(failure.cause());
        }
        EncodedPage page = (EncodedPage) item;
        done.done(page, writer.write(page));
      }
    } finally {
      stages.shutdownNow();
    }
  }

  private interface Body {
    void run() throws Exception;
  }

  /** Runs a stage; its failure travels down the pipeline in place of the next item. */
  private static void stage(BlockingQueue<Object> out, Body body) {
    try {
      body.run();
      out.put(END);
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

  private void read(RowRange range, long from, BlockingQueue<Object> out) throws Exception {
    long position = from;
    String token = null;
    while (position < range.end()) {
      int want = (int) Math.min(pageRows, range.end() - position);
      Page page = reader.read(table, position, token, want);
      int rows = page.rows().size();
      if (rows == 0) {
        throw new SourceException(
            "BigQuery returned no rows at position "
                + position
                + " of "
                + range
                + ": the table has fewer rows than it had at start");
      }
      token = page.nextPageToken();
      if (rows > want) {
        // A server that ignores maxResults: keep this task inside its range.
        page = new Page(position, page.rows().subList(0, want), null);
        rows = want;
        token = null;
      } else if (page.startIndex() != position) {
        page = new Page(position, page.rows(), token);
      }
      position += rows;
      progress.pageRead(rows);
      out.put(page);
    }
  }

  /** Encodes pages until the reader's END or failure, which it passes on. */
  private void encode(BlockingQueue<Object> in, BlockingQueue<Object> out) {
    try {
      while (true) {
        Object item = in.take();
        if (item == END || item instanceof Failure) {
          out.put(item);
          return;
        }
        try {
          out.put(encoder.encode((Page) item));
        } catch (RuntimeException e) {
          out.put(new Failure(e));
          return;
        }
      }
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
