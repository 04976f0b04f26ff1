package io.isthmus.metadata.controller;

/** A command that could not be applied; the controller's state is as it was before the command. */
public final class CommandFailedException extends RuntimeException {
    CommandFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
