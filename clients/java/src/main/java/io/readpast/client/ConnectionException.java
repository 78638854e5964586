package io.readpast.client;

/** No answer: the connection failed or timed out (status 0). */
public class ConnectionException extends ReadpastException {
    private static final long serialVersionUID = 1L;

    public ConnectionException(String detail, Throwable cause) {
        super(0, detail, null, null, null, cause);
    }
}
