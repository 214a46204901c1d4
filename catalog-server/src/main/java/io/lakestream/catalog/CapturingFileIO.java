package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * A {@link FileIO} that keeps a copy of the bytes of the last table metadata file ({@code
 * *.metadata.json}) written through it, available once the file is closed (and so, with the
 * delegate's guarantees, in place). Other files pass through uncopied. The table operations of one
 * request use it to parse the metadata file they just wrote from the very bytes a later reader of
 * the file gets, instead of reading the file back. Not thread safe: one per table operations
 * object.
 *
 * <p>Prefix operations (tiering's orphan-file sweep lists with them) go to the delegate, and throw
 * {@link UnsupportedOperationException} when the delegate has none.
 */
final class CapturingFileIO implements SupportsPrefixOperations {
  private static final long serialVersionUID = 1L;

  private final FileIO delegate;
  private transient String lastLocation;
  private transient byte[] lastBytes;

  CapturingFileIO(FileIO delegate) {
    this.delegate = requireNonNull(delegate, "delegate is null");
  }

  /** The bytes of the file last written and closed at {@code location}, or null. */
  byte[] written(String location) {
    return location.equals(lastLocation) ? lastBytes : null;
  }

  @Override
  public InputFile newInputFile(String location) {
    return delegate.newInputFile(location);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return delegate.newInputFile(location, length);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    OutputFile file = delegate.newOutputFile(location);
    if (!location.endsWith(".metadata.json")) {
      return file;
    }
    return new OutputFile() {
      @Override
      public PositionOutputStream create() {
        return new CapturingStream(file.location(), file.create());
      }

      @Override
      public PositionOutputStream createOrOverwrite() {
        return new CapturingStream(file.location(), file.createOrOverwrite());
      }

      @Override
      public String location() {
        return file.location();
      }

      @Override
      public InputFile toInputFile() {
        return file.toInputFile();
      }
    };
  }

  @Override
  public void deleteFile(String location) {
    delegate.deleteFile(location);
  }

  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    return prefixOperations().listPrefix(prefix);
  }

  @Override
  public void deletePrefix(String prefix) {
    prefixOperations().deletePrefix(prefix);
  }

  private SupportsPrefixOperations prefixOperations() {
    if (delegate instanceof SupportsPrefixOperations prefixes) {
      return prefixes;
    }
    throw new UnsupportedOperationException(
        delegate.getClass().getName() + " cannot list or delete by prefix");
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }

  private final class CapturingStream extends PositionOutputStream {
    private final String location;
    private final PositionOutputStream out;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream(8192);
    private boolean closed;

    CapturingStream(String location, PositionOutputStream out) {
      this.location = location;
      this.out = out;
    }

    @Override
    public long getPos() throws IOException {
      return out.getPos();
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      copy.write(b);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      out.write(bytes, offset, length);
      copy.write(bytes, offset, length);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      out.close();
      lastLocation = location;
      lastBytes = copy.toByteArray();
    }
  }
}
