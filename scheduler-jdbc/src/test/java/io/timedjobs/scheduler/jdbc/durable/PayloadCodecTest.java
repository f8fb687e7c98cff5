package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** Payloads through Jackson 3 and Jackson 2: written as JSON, read only as the declared type. */
class PayloadCodecTest {

    record Reminder(String who, String text) {}

    /** A value the mapper cannot write: its getter throws. */
    static final class Unwritable {
        public String getValue() {
            throw new IllegalStateException("no value");
        }
    }

    private final List<PayloadCodec> codecs = List.of(
            new JacksonPayloadCodec(JsonMapper.builder().build()), new Jackson2PayloadCodec(new ObjectMapper()));

    /** A value written as JSON reads back as the declared type, with no class name in the text. */
    @Test
    void shouldWriteJsonWithoutClassNamesAndReadItAsTheDeclaredType() {
        for (PayloadCodec codec : codecs) {
            String text = codec.write(new Reminder("ada", "tea"));

            assertThat(text).doesNotContain("PayloadCodecTest").contains("\"who\":\"ada\"");
            assertThat(codec.read(text, Reminder.class)).isEqualTo(new Reminder("ada", "tea"));
        }
    }

    /** A value the mapper cannot write, or text that is not the declared type, is a clear error. */
    @Test
    void shouldRejectWhatCannotBeWrittenOrRead() {
        for (PayloadCodec codec : codecs) {
            assertThatThrownBy(() -> codec.write(new Unwritable()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Cannot write a " + Unwritable.class.getName());
            assertThatThrownBy(() -> codec.read("[1, 2]", Reminder.class))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Cannot read a payload as " + Reminder.class.getName());
        }
    }

    /** Without a mapper, only String payloads are accepted. */
    @Test
    void shouldAcceptOnlyStringsWithoutAMapper() {
        assertThatThrownBy(() -> PayloadCodec.stringsOnly().write(new Reminder("a", "b")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no JSON mapper");
    }
}
