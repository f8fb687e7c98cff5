package io.timedjobs.scheduler.jdbc.durable;

/**
 * Implementations are thread-safe. Turns payload values into the text stored in a task's row and back,
 * always as a type the caller names: no class name is ever written with the text or taken from it.
 *
 * <p>String payloads never reach the codec: they are stored as they are and handed back as they are to
 * handlers whose payload type is {@code String}. {@link JacksonPayloadCodec} (Jackson 3) and {@link
 * Jackson2PayloadCodec} (Jackson 2) wrap the application's own mapper.
 */
public interface PayloadCodec {

    /**
     * Writes a value as text.
     *
     * @throws IllegalArgumentException when the value cannot be written
     */
    String write(Object value);

    /**
     * Reads text as the given type.
     *
     * @throws IllegalArgumentException when the text is not a {@code type}
     */
    <T> T read(String text, Class<T> type);

    /** A codec for applications without a JSON mapper: only String payloads are accepted. */
    static PayloadCodec stringsOnly() {
        return StringsOnlyPayloadCodec.INSTANCE;
    }
}

enum StringsOnlyPayloadCodec implements PayloadCodec {
    INSTANCE;

    @Override
    public String write(Object value) {
        throw new IllegalArgumentException("Cannot write a " + value.getClass().getName()
                + " payload: no JSON mapper (Jackson 2 or 3) is configured; pass a String instead");
    }

    @Override
    public <T> T read(String text, Class<T> type) {
        throw new IllegalArgumentException("Cannot read a payload as " + type.getName()
                + ": no JSON mapper (Jackson 2 or 3) is configured; declare String as the handler's payload type");
    }
}
