package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;

/**
 * Spring's AOT processing of an application with durable task handlers registers reflection hints
 * for each handler's payload type (and the types it nests), so that a native image can read them.
 */
class DurablePayloadHintsTest {

    record Address(String city) {}

    record Reminder(String who, Address address) {}

    record Invoice(long number) {}

    /** A handler whose payload type is its class's type argument. */
    static final class ReminderHandler implements DurableTaskHandler<Reminder> {
        @Override
        public Class<Reminder> payloadType() {
            return Reminder.class;
        }

        @Override
        public void handle(DurableTask<Reminder> task) {}
    }

    /** Handlers as an application declares them: a class, and a @Bean method typed by its payload. */
    @Configuration(proxyBeanMethods = false)
    static class Handlers {

        @Bean
        ReminderHandler reminders() {
            return new ReminderHandler();
        }

        @Bean
        DurableTaskHandler<Invoice> invoices() {
            return new DurableTaskHandler<>() {
                @Override
                public Class<Invoice> payloadType() {
                    return Invoice.class;
                }

                @Override
                public void handle(DurableTask<Invoice> task) {}
            };
        }
    }

    private static RuntimeHints processAheadOfTime(Class<?>... configurations) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.register(configurations);
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get(DurablePayloadHintsTest.class.getPackageName(), "Generated")),
                new InMemoryGeneratedFiles());
        new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        return generation.getRuntimeHints();
    }

    /** The payload records of both handlers, the record nested in one, and their accessors, are registered. */
    @Test
    void shouldRegisterHintsForEachHandlersPayloadType() throws NoSuchMethodException {
        RuntimeHints hints = processAheadOfTime(Handlers.class);

        for (Class<?> type : List.of(Reminder.class, Address.class, Invoice.class)) {
            assertThat(RuntimeHintsPredicates.reflection().onType(type))
                    .as(type.getName())
                    .accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onMethod(Reminder.class.getMethod("who")))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethod(Address.class.getMethod("city")))
                .accepts(hints);
    }

    /** Spring's AOT processing finds the processor through aot.factories. */
    @Test
    void shouldBeListedInAotFactories() {
        assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                        .load(BeanRegistrationAotProcessor.class))
                .hasAtLeastOneElementOfType(DurablePayloadHintsAotProcessor.class);
    }
}
