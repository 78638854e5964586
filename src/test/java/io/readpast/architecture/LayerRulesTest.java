package io.readpast.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.base.DescribedPredicate.alwaysTrue;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The dependency rule of docs/ARCHITECTURE.md, checked on the compiled main classes: api → core →
 * store (ports and rows); security, webhook and ops depend on core and the ports only; no
 * package cycle. Inside api, one package per noun (jobs, leases, queues, ...) beside the shared
 * plumbing (api.http): a noun's package uses core and the plumbing, never another noun's.
 */
class LayerRulesTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMain() {
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.readpast");
    }

    @Test
    void noPackageCycles() {
        slices().matching("io.readpast.(*)..").should().beFreeOfCycles().check(main);
    }

    @Test
    void apiTalksToCoreNotToTheStore() {
        ArchRule rule = noClasses().that().resideInAPackage("io.readpast.api..")
                .should().dependOnClassesThat().resideInAPackage("io.readpast.store.jdbc..")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("io.readpast.store.Database")
                .orShould().dependOnClassesThat().haveSimpleNameEndingWith("Store")
                .because("resources call core services; only core uses the store ports");
        rule.check(main);
    }

    @Test
    void apiReadsStorageRowsButNeverBuildsThem() {
        noClasses().that().resideInAPackage("io.readpast.api..")
                .should().callConstructorWhere(DescribedPredicate.describe("a constructor of a store row",
                        c -> c.getTargetOwner().getPackageName().equals("io.readpast.store")
                                && c.getTargetOwner().getSimpleName().endsWith("Row")))
                .because("a row is what the store returns; a request becomes a core command, not a row")
                .check(main);
    }

    /** The api room's shared plumbing: request and response records, checks, problem mapping, OpenAPI text. */
    private static final String API_PLUMBING = "io.readpast.api.http..";

    @Test
    void everyApiClassLivesInANounPackageOrThePlumbing() {
        classes().that().resideInAPackage("io.readpast.api..")
                .should().resideInAPackage("io.readpast.api.*..")
                .because("a class in io.readpast.api itself would belong to no slice of the rule below")
                .check(main);
    }

    @Test
    void aResourcePackageUsesCoreAndThePlumbingNeverAnotherResourcePackage() {
        slices().matching("io.readpast.api.(*)..").namingSlices("api.$1")
                .should().notDependOnEachOther()
                // what the nouns share lives in the plumbing; the next rule keeps it below them
                .ignoreDependency(alwaysTrue(), resideInAPackage(API_PLUMBING))
                .ignoreDependency(resideInAPackage(API_PLUMBING), alwaysTrue())
                .because("each noun's package (jobs, leases, queues, batches, schedules, keys, webhooks) reads on "
                        + "its own: what two of them need goes into api.http")
                .check(main);
    }

    @Test
    void theApiPlumbingUsesNoResourcePackage() {
        noClasses().that().resideInAPackage(API_PLUMBING)
                .should().dependOnClassesThat(resideInAPackage("io.readpast.api..")
                        .and(DescribedPredicate.not(resideInAPackage(API_PLUMBING))))
                .because("the plumbing is shared by the resource packages, so it sits below all of them")
                .check(main);
    }

    @Test
    void webhookAndSecurityDoNotDependOnTheApi() {
        noClasses().that().resideInAnyPackage("io.readpast.webhook..", "io.readpast.security..")
                .should().dependOnClassesThat().resideInAPackage("io.readpast.api..")
                .check(main);
    }

    @Test
    void coreDoesNotDependOnOpsWebhookSecurityOrApi() {
        noClasses().that().resideInAPackage("io.readpast.core..")
                .should().dependOnClassesThat().resideInAnyPackage("io.readpast.ops..", "io.readpast.webhook..",
                        "io.readpast.security..", "io.readpast.api..", "io.readpast.ui..")
                .because("core reports through JobEvents, which ops implements")
                .check(main);
    }

    @Test
    void onlyTheStoreUsesJdbc() {
        noClasses().that().resideOutsideOfPackages("io.readpast.store..", "io.readpast.config..", "io.readpast.ops..")
                .should().dependOnClassesThat().resideInAPackage("java.sql..")
                .check(main);
    }

    @Test
    void storeKnowsNothingAbove() {
        noClasses().that().resideInAPackage("io.readpast.store..")
                .should().dependOnClassesThat().resideInAnyPackage("io.readpast.core..", "io.readpast.api..",
                        "io.readpast.security..", "io.readpast.webhook..", "io.readpast.ops..", "io.readpast.ui..")
                .check(main);
    }
}
