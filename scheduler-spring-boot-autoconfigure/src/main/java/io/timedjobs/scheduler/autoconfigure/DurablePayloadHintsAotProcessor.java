package io.timedjobs.scheduler.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/**
 * Spring AOT processor, called by Spring's AOT processing only, once per bean; listed in {@code
 * META-INF/spring/aot.factories}. Registers reflection hints, for AOT and native images, for the
 * payload type of each durable task handler bean: the JSON mapper builds those types (records,
 * nested types, their fields and accessors) by reflection, and nothing else names them.
 *
 * <p>The type is read from the bean's declared type ({@code DurableTaskHandler<Reminder>}), without
 * creating the bean. A handler declared only as a raw {@code DurableTaskHandler} gets no hints; the
 * guide says so.
 */
final class DurablePayloadHintsAotProcessor implements BeanRegistrationAotProcessor {

    private static final String HANDLER = "io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler";

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        ClassLoader classLoader = registeredBean.getBeanFactory().getBeanClassLoader();
        if (!ClassUtils.isPresent(HANDLER, classLoader)) {
            return null;
        }
        Class<?> handler = ClassUtils.resolveClassName(HANDLER, classLoader);
        ResolvableType beanType = registeredBean.getBeanType();
        if (!handler.isAssignableFrom(beanType.toClass())) {
            return null;
        }
        Class<?> payload = beanType.as(handler).getGeneric(0).resolve();
        if (payload == null || payload == String.class || payload == Void.class || payload == Object.class) {
            return null;
        }
        return (generationContext, code) -> new BindingReflectionHintsRegistrar()
                .registerReflectionHints(generationContext.getRuntimeHints().reflection(), payload);
    }
}
