package io.lakestream.catalog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * {@link FileIO} on the local file system, for warehouses under {@code file:} locations, without
 * Hadoop on the server's classpath.
 *
 * <p>Every file is written to a temporary sibling, forced to disk, and then moved into place
 * atomically, so a reader never sees a partial file and a file the catalog points at survives a
 * crash of the process or the machine. {@link OutputFile#create()} fails if the file exists.
 *
 * <p>Prefix operations treat the prefix as a directory, as Hadoop's file IO does: {@link
 * #listPrefix} lists every regular file below it, recursively (temporary siblings of files being
 * written included), each with its last-modified time as {@code createdAtMillis}; a file still
 * being written keeps looking new. A prefix that does not exist lists nothing.
 */
public final class LocalFileIO implements SupportsPrefixOperations {
  private static final long serialVersionUID = 1L;

  /**
   * The local path of a {@code file:} URI, of a {@code local:} one (how Trino's local file system
   * names the same files) or of a plain absolute path.
   */
  public static Path toPath(String location) {
    if (location.startsWith("file:")) {
      return fileUriPath(location);
    }
    if (location.startsWith("local:")) {
      return fileUriPath("file:" + location.substring(6));
    }
    if (location.startsWith("/")) {
      return Path.of(location);
    }
    throw new IllegalArgumentException("Not a local file location: " + location);
  }

  /**
   * The path of a {@code file:} URI whose spaces and non-ASCII characters may stand as they are (as
   * engines write them): both are escaped before the URI is read, since the file system reads only
   * escaped octets.
   */
  private static Path fileUriPath(String location) {
    return Path.of(URI.create(URI.create(location.replace(" ", "%20")).toASCIIString()));
  }

  @Override
  public InputFile newInputFile(String location) {
    return new LocalInputFile(location);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return new LocalOutputFile(location);
  }

  @Override
  public void deleteFile(String location) {
    try {
      Files.deleteIfExists(toPath(location));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete " + location, e);
    }
  }

  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    Path directory = toPath(prefix);
    String base = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
    List<FileInfo> files = new ArrayList<>();
    try (Stream<Path> paths = Files.walk(directory)) {
      paths.forEach(
          path -> {
            BasicFileAttributes attributes;
            try {
              attributes = Files.readAttributes(path, BasicFileAttributes.class);
            } catch (NoSuchFileException e) {
              return; // deleted while listing
            } catch (IOException e) {
              throw new UncheckedIOException("Cannot list " + path, e);
            }
            if (attributes.isRegularFile()) {
              String relative = directory.relativize(path).toString().replace('\\', '/');
              files.add(
                  new FileInfo(
                      relative.isEmpty() ? base : base + "/" + relative,
                      attributes.size(),
                      attributes.lastModifiedTime().toMillis()));
            }
          });
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + prefix, e);
    }
    return files;
  }

  @Override
  public void deletePrefix(String prefix) {
    for (FileInfo file : listPrefix(prefix)) {
      deleteFile(file.location());
    }
  }

  private record LocalInputFile(String location) implements InputFile {
    @Override
    public long getLength() {
      try {
        return Files.size(toPath(location));
      } catch (NoSuchFileException e) {
        throw new NotFoundException(e, "File does not exist: %s", location);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public SeekableInputStream newStream() {
      try {
        return new LocalSeekableStream(FileChannel.open(toPath(location), StandardOpenOption.READ));
      } catch (NoSuchFileException e) {
        throw new NotFoundException(e, "File does not exist: %s", location);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public boolean exists() {
      return Files.exists(toPath(location));
    }
  }

  private record LocalOutputFile(String location) implements OutputFile {
    @Override
    public PositionOutputStream create() {
      if (Files.exists(toPath(location))) {
        throw new AlreadyExistsException("File already exists: %s", location);
      }
      return open(false);
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      return open(true);
    }

    private PositionOutputStream open(boolean overwrite) {
      Path target = toPath(location);
      try {
        // createDirectories throws and catches an exception for a directory that exists.
        if (!Files.isDirectory(target.getParent())) {
          Files.createDirectories(target.getParent());
        }
        Path temporary =
            target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        FileChannel channel =
            FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        return new LocalPositionStream(channel, temporary, target, overwrite);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot create " + location, e);
      }
    }

    @Override
    public InputFile toInputFile() {
      return new LocalInputFile(location);
    }
  }

  private static final class LocalPositionStream extends PositionOutputStream {
    private final FileChannel channel;
    private final Path temporary;
    private final Path target;
    private final boolean overwrite;
    private long position;
    private boolean closed;

    LocalPositionStream(FileChannel channel, Path temporary, Path target, boolean overwrite) {
      this.channel = channel;
      this.temporary = temporary;
      this.target = target;
      this.overwrite = overwrite;
    }

    @Override
    public long getPos() {
      return position;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      position += length;
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try (channel) {
        channel.force(true);
      }
      try {
        if (overwrite) {
          moveAtomically(StandardCopyOption.REPLACE_EXISTING);
        } else {
          // A link fails if the target exists, which gives create() its exclusive semantics.
          Files.createLink(target, temporary);
          Files.delete(temporary);
        }
      } catch (FileAlreadyExistsException e) {
        Files.deleteIfExists(temporary);
        throw new AlreadyExistsException("File already exists: %s", target);
      }
      try (FileChannel directory = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
        directory.force(true);
      }
    }

    private void moveAtomically(StandardCopyOption option) throws IOException {
      try {
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, option);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, target, option);
      }
    }
  }

  private static final class LocalSeekableStream extends SeekableInputStream {
    private final FileChannel channel;

    LocalSeekableStream(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public long getPos() throws IOException {
      return channel.position();
    }

    @Override
    public void seek(long newPosition) throws IOException {
      channel.position(newPosition);
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int read = read(one, 0, 1);
      return read <= 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] bytes, int offset, int length) throws IOException {
      return channel.read(ByteBuffer.wrap(bytes, offset, length));
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
