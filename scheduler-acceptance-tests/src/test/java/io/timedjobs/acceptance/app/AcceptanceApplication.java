package io.timedjobs.acceptance.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Spring Boot application, started by the acceptance tests in JVMs of their own. Written as the
 * README and the guides tell a user to write one: the starter, {@code scheduler-jdbc}, Boot's
 * starters and properties, and no bean that Boot would provide declared by hand. Profiles add
 * durable tasks ({@code durable}) and reactive jobs ({@code reactive}).
 */
@SpringBootApplication
@EnableScheduling
public class AcceptanceApplication {

    public static void main(String[] args) {
        SpringApplication.run(AcceptanceApplication.class, args);
    }
}
