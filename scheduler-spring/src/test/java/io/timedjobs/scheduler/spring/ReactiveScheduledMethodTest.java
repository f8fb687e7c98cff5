package io.timedjobs.scheduler.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Reading Spring's runnable of a reactive {@code @Scheduled} method. */
class ReactiveScheduledMethodTest {

    /** Any other runnable is no reactive method. */
    @Test
    void shouldFindNoReactiveMethodInAnotherRunnable() {
        assertThat(ReactiveScheduledMethod.of(() -> {})).isNull();
    }

    /** Spring's runnable of a reactive method in a shape this code does not know is refused, saying why. */
    @Test
    void shouldRefuseARunnableOfAnotherShape() {
        Runnable changed = () -> {};
        assertThatThrownBy(() -> ReactiveScheduledMethod.read(changed))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("once per fire across instances")
                .hasMessageContaining("Spring Framework")
                .hasMessageContaining("no field 'publisher'");
    }
}
